/**
 * Walks a path (scripts/map/types.ts) through the code and says where it no longer holds.
 * Pure: the caller hands in a reader of the repository's files (undefined for a missing one).
 *
 * The import graph is read with a plain parse of each listed file's import specifiers (static,
 * `export … from`, dynamic `import("…")`, type-only ones too), resolved as the bundler resolves
 * relative paths (`./x` is x.ts, x.tsx or x/index.ts; a `.js` suffix names the .ts file).
 * Packages are not followed: every edge of a path is between the repository's own files.
 *
 * What each edge must show:
 * - import: the step's file among the imports of `from`, directly; or, where the edge names
 *   `through`, along that chain, each hop a direct import, each middle file a step of the same
 *   path or in the folder of one end, at most MAX_THROUGH of them.
 * - rpc: `from` calls `.method(` and names its stub (imports bindings/objects.ts when the stub
 *   is one of its functions); the step's file is an object class (extends DurableObject or
 *   Container) that defines `method(`.
 * - http: the sent marker in the file that addresses the request, the served marker in the file
 *   that serves it, and that file, when it is not the step's, importing the step's file.
 * - exec: `from` starts processes (`spawn(`); the command is quoted in `origin`, a step of the
 *   path, and in the step's file, the program that handles it.
 * An edge from a step that has an alternative (`or`) must hold from the alternative too.
 */
import { type Edge, folderOf, MAX_THROUGH, type Path, type Step } from "./types";

export type Reader = (file: string) => string | undefined;

const OBJECT_STUBS = "bindings/objects.ts";

/** Comments out of the way, so an import named in prose is no edge. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** The module specifiers a file imports or re-exports from, in the order they appear. */
export function importSpecifiers(source: string): string[] {
  const code = withoutComments(source);
  const found: { at: number; specifier: string }[] = [];
  const patterns = [/\bfrom\s*["']([^"']+)["']/g, /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g, /^\s*import\s*["']([^"']+)["']/gm];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) found.push({ at: match.index, specifier: match[1]! });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.specifier);
}

/** Joins a relative specifier onto a file's folder; null for a package. */
function joined(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return null;
  const parts = folderOf(fromFile)
    .split("/")
    .filter((p) => p !== ".");
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** The repository file a relative specifier names, or null (a package, or nothing there). */
export function resolveSpecifier(fromFile: string, specifier: string, exists: (file: string) => boolean): string | null {
  const base = joined(fromFile, specifier);
  if (base === null) return null;
  const stem = base.replace(/\.(js|mjs)$/, "");
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}/index.ts`];
  return candidates.find((c) => /\.tsx?$/.test(c) && exists(c)) ?? null;
}

/** The repository files `file` imports. */
export function importsOf(file: string, read: Reader): Set<string> {
  const source = read(file);
  if (source === undefined) return new Set();
  const exists = (f: string) => read(f) !== undefined;
  return new Set(importSpecifiers(source).flatMap((s) => resolveSpecifier(file, s, exists) ?? []));
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whether `source` defines a method `name` (a class member, an optional modifier before it). */
export function definesMethod(source: string, name: string): boolean {
  const modifiers = "(?:(?:public|private|protected|override|async|static|readonly)\\s+)*";
  return new RegExp(`^\\s*${modifiers}${escaped(name)}\\s*(?:<[^>\\n]*>)?\\(`, "m").test(withoutComments(source));
}

/** The files a step's edges are checked from: `from`, or the step before, and the alternative in its place. */
function sources(path: Path, index: number, edge: Edge): string[] {
  const from = edge.from ?? path.steps[index - 1]?.file;
  if (from === undefined) return [];
  const twins = path.steps.slice(0, index).flatMap((s) => (s.file === from && s.or ? [s.or.file] : []));
  return [from, ...new Set(twins)];
}

function checkImport(path: Path, source: string, target: string, through: string[], read: Reader): string[] {
  if (through.length > MAX_THROUGH) return [`imports through ${through.length} files, more than ${MAX_THROUGH}`];
  const listed = new Set(path.steps.flatMap((s) => [s.file, ...(s.or ? [s.or.file] : [])]));
  const problems = through.flatMap((middle) =>
    listed.has(middle) || folderOf(middle) === folderOf(source) || folderOf(middle) === folderOf(target)
      ? []
      : [`${middle} is neither a step of the path nor in the folder of ${source} or ${target}`],
  );
  const chain = [source, ...through, target];
  for (let i = 0; i + 1 < chain.length; i++) {
    if (!importsOf(chain[i]!, read).has(chain[i + 1]!)) problems.push(`${chain[i]} does not import ${chain[i + 1]}`);
  }
  return problems;
}

function checkEdge(path: Path, index: number, target: string, edge: Edge, read: Reader): string[] {
  const problems: string[] = [];
  const text = (file: string) => read(file) ?? "";
  const targetText = text(target);
  for (const source of sources(path, index, edge)) {
    const code = withoutComments(text(source));
    if (edge.kind === "import") problems.push(...checkImport(path, source, target, edge.through ?? [], read));
    else if (edge.kind === "rpc") {
      if (!code.includes(`.${edge.method}(`)) problems.push(`${source} does not call .${edge.method}(`);
      if (!new RegExp(`\\b${escaped(edge.stub)}\\b`).test(code)) problems.push(`${source} does not name the stub ${edge.stub}`);
      const stubs = text(OBJECT_STUBS);
      if (new RegExp(`export function ${escaped(edge.stub)}\\(`).test(stubs) && !importsOf(source, read).has(OBJECT_STUBS)) {
        problems.push(`${source} does not import ${OBJECT_STUBS}, where ${edge.stub} is`);
      }
      if (!/\bextends\s+(DurableObject|Container)\b/.test(targetText)) problems.push(`${target} defines no Durable Object or Container class`);
      if (!definesMethod(targetText, edge.method)) problems.push(`${target} does not define ${edge.method}(`);
    } else if (edge.kind === "http") {
      const sender = edge.sent.file ?? source;
      const server = edge.served.file ?? target;
      if (!text(sender).includes(edge.sent.marker)) problems.push(`${sender} does not name ${edge.sent.marker}`);
      if (!text(server).includes(edge.served.marker)) problems.push(`${server} does not name ${edge.served.marker}`);
      if (server !== target && !importsOf(server, read).has(target)) problems.push(`${server} does not import ${target}`);
    } else {
      if (!code.includes("spawn(")) problems.push(`${source} starts no process (spawn)`);
      const quoted = `"${edge.command}"`;
      if (!text(edge.origin).includes(quoted)) problems.push(`${edge.origin} does not name the command ${quoted}`);
      if (!targetText.includes(quoted)) problems.push(`${target} does not handle the command ${quoted}`);
    }
  }
  return problems;
}

/** The files an edge names besides its two ends, which must be steps of the path before `index`. */
function namedFiles(edge: Edge): string[] {
  const named = edge.from ? [edge.from] : [];
  if (edge.kind === "exec") named.push(edge.origin);
  return named;
}

/** What no longer holds of the path, one line per problem, each naming its step. */
export function walkPath(path: Path, read: Reader): string[] {
  const problems: string[] = [];
  const say = (index: number, file: string, problem: string) => problems.push(`${path.id} step ${index + 1} (${file}): ${problem}`);
  path.steps.forEach((step: Step, index: number) => {
    const earlier = new Set(path.steps.slice(0, index).flatMap((s) => [s.file, ...(s.or ? [s.or.file] : [])]));
    for (const place of [step, ...(step.or ? [step.or] : [])]) {
      if (read(place.file) === undefined) {
        say(index, place.file, "no such file");
        continue;
      }
      const reached = place.reached;
      if (!reached) {
        if (index > 0) say(index, place.file, "says not how it is reached");
        continue;
      }
      if (index === 0) say(index, place.file, "the first step is reached by nothing");
      for (const named of namedFiles(reached)) if (!earlier.has(named)) say(index, place.file, `${named} is not an earlier step`);
      for (const problem of checkEdge(path, index, place.file, reached, read)) say(index, place.file, problem);
    }
  });
  return problems;
}
