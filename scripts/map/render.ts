/**
 * The sections of docs/architecture.md that `npm run map` writes: for each path its heading,
 * what it starts with, the count of its files and folders, a mermaid diagram and the ordered
 * list of its steps. Pure: text in, text out. A section sits between `<!-- map:<id> -->` and
 * `<!-- /map:<id> -->`; whatever lies outside the markers is left as it is.
 */
import { countsOf, type Edge, filesOf, folderOf, type Path } from "./types";

const start = (id: string) => `<!-- map:${id} -->`;
const end = (id: string) => `<!-- /map:${id} -->`;

const code = (text: string) => `\`${text}\``;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** How a step is reached, as the list says it. */
export function edgeText(edge: Edge, previous: string): string {
  const from = code(edge.from ?? previous);
  switch (edge.kind) {
    case "import":
      return `imported by ${from}${edge.through?.length ? ` through ${edge.through.map(code).join(", ")}` : ""}`;
    case "rpc":
      return `RPC ${code(edge.method)} from ${from} (stub ${code(edge.stub)})`;
    case "http":
      return `HTTP from ${from}: ${edge.request}`;
    case "exec":
      return `a process the guest starts from ${from}: ${code(`guilds-code ${edge.command}`)}, the command written in ${code(edge.origin)}`;
  }
}

/** The sentence with the counts. */
export function countSentence(path: Path): string {
  const { files, folders, middleware, alternatives } = countsOf(path);
  const or = alternatives
    ? ` (${alternatives === 1 ? "one of them" : `${alternatives} of them`}, listed with “or”, in place of another where the platform routes the work so)`
    : "";
  const without = middleware ? `; ${files - middleware} without the Worker's ${plural(middleware, "middleware file")}` : "";
  return `**${plural(files, "file")} in ${plural(folders, "folder")}** ${path.span}${or}${without}.`;
}

/** The mermaid flowchart: one node per file, grouped by folder; one arrow per step, numbered as the list. */
export function mermaid(path: Path): string {
  const files = filesOf(path);
  const id = (file: string) => `n${files.indexOf(file)}`;
  const lines = ["```mermaid", "flowchart TD"];
  const folders = [...new Set(files.map(folderOf))];
  folders.forEach((folder, i) => {
    lines.push(`  subgraph f${i} ["${folder}/"]`);
    for (const file of files.filter((f) => folderOf(f) === folder)) lines.push(`    ${id(file)}["${file.slice(folder.length + 1)}"]`);
    lines.push("  end");
  });
  const arrow = (edge: Edge, number: number, source: string, target: string) => {
    const label = edge.kind === "import" ? `${number}` : edge.kind === "rpc" ? `${number} rpc ${edge.method}` : `${number} ${edge.kind}`;
    const shaft = edge.kind === "import" ? "-->" : edge.kind === "rpc" ? "==>" : "-.->";
    return `  ${id(source)} ${shaft}|"${label}"| ${id(target)}`;
  };
  const twins = new Set<string>();
  path.steps.forEach((step, i) => {
    const previous = path.steps[i - 1]?.file ?? "";
    if (step.reached) lines.push(arrow(step.reached, i + 1, step.reached.from ?? previous, step.file));
    if (!step.or) return;
    lines.push(arrow(step.or.reached, i + 1, step.or.reached.from ?? previous, step.or.file));
    const twin = `  ${id(step.file)} -.-|"or"| ${id(step.or.file)}`;
    if (!twins.has(twin)) lines.push(twin);
    twins.add(twin);
  });
  const middleware = [...new Set(path.steps.filter((s) => s.middleware).map((s) => id(s.file)))];
  if (middleware.length) lines.push("  classDef middleware stroke-dasharray: 4 3", `  class ${middleware.join(",")} middleware`);
  lines.push("```");
  return lines.join("\n");
}

/** The ordered list: file, folder, what happens there, and how it is reached. */
export function stepList(path: Path): string {
  const seen = new Set<string>();
  return path.steps
    .map((step, i) => {
      const previous = path.steps[i - 1]?.file ?? "";
      const again = seen.has(step.file) ? " (again)" : "";
      seen.add(step.file);
      const tags = [`${code(`${folderOf(step.file)}/`)}`, ...(step.middleware ? ["middleware"] : [])].join(", ");
      const reached = step.reached ? ` ← ${edgeText(step.reached, previous)}` : "";
      const line = `${i + 1}. ${code(step.file)}${again} (${tags}): ${step.what}${reached}`;
      if (!step.or) return line;
      const alt = step.or;
      return `${line}\n   - or ${code(alt.file)} (${code(`${folderOf(alt.file)}/`)}): ${alt.what} ← ${edgeText(alt.reached, previous)}`;
    })
    .join("\n");
}

/** A path's whole section, markers included. */
export function section(path: Path): string {
  return [
    start(path.id),
    "<!-- Written by `npm run map` from scripts/map/ (edit the path there); `npm run map -- --check` and scripts/map/map.test.ts check it against the code. -->",
    "",
    `## ${path.title}`,
    "",
    path.intro,
    "",
    `${countSentence(path)} Each step says how it is reached: imported by the file named, called over RPC on a Durable Object's stub, ` +
      "sent an HTTP request, or run as a process in the box. Dashed boxes are middleware; a thick arrow is RPC, a dotted one HTTP or a process.",
    "",
    mermaid(path),
    "",
    stepList(path),
    end(path.id),
  ].join("\n");
}

/** `doc` with each path's section written between its markers; `missing` names the paths whose markers are not there. */
export function writeSections(doc: string, paths: readonly Path[]): { text: string; missing: string[] } {
  let text = doc;
  const missing: string[] = [];
  for (const path of paths) {
    const from = text.indexOf(start(path.id));
    const to = text.indexOf(end(path.id));
    if (from === -1 || to === -1 || to < from) {
      missing.push(path.id);
      continue;
    }
    text = text.slice(0, from) + section(path) + text.slice(to + end(path.id).length);
  }
  return { text, missing };
}
