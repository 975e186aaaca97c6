/**
 * The API's route table in Markdown, from the OpenAPI document the Worker serves (committed
 * as docs/openapi.json by `npm run openapi`): one section per tag, in the document's tag
 * order, each route with its method, path and summary, in the document's order. Pure: the
 * document is passed in.
 */
import { cell } from "./markdown";

const METHODS: readonly string[] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** What the table reads of an OpenAPI 3.1 document. */
export interface OpenApiDocument {
  tags?: Array<{ name: string; description?: string }>;
  security?: unknown[];
  paths: Record<string, Partial<Record<string, OpenApiOperation>>>;
}

export interface OpenApiOperation {
  summary?: string;
  tags?: string[];
  /** `[]`: the route needs no token (the document's default security does not apply). */
  security?: unknown[];
}

interface Route {
  method: string;
  path: string;
  summary: string;
  open: boolean;
}

/**
 * @example apiRouteTables({ tags: [{ name: "Platform" }], paths: { "/api/health": { get: { summary: "Health", tags: ["Platform"], security: [] } } } })
 *   // "Routes: 1, in 1 sections. …\n\n### Platform\n\n| Method | Path | Summary |\n| --- | --- | --- |\n| GET | `/api/health` | Health *(no token)* |\n"
 */
export function apiRouteTables(doc: OpenApiDocument): string {
  const groups = new Map<string, Route[]>();
  const descriptions = new Map<string, string | undefined>();
  for (const tag of doc.tags ?? []) {
    groups.set(tag.name, []);
    descriptions.set(tag.name, tag.description);
  }
  let count = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || !METHODS.includes(method)) continue;
      const tag = op.tags?.[0] ?? "Other";
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ method: method.toUpperCase(), path, summary: op.summary ?? "", open: Array.isArray(op.security) && op.security.length === 0 });
      count++;
    }
  }
  const sections = [...groups].filter(([, routes]) => routes.length > 0);
  const lines = [`Routes: ${count}, in ${sections.length} sections. Those marked *(no token)* need no \`Authorization\` header; every other one does.`, ""];
  for (const [tag, routes] of sections) {
    lines.push(`### ${tag}`, "");
    const description = descriptions.get(tag);
    if (description) lines.push(`${cell(description)}.`, "");
    lines.push("| Method | Path | Summary |", "| --- | --- | --- |");
    for (const r of routes) lines.push(`| ${r.method} | \`${r.path}\` | ${cell(r.summary)}${r.open ? " *(no token)*" : ""} |`);
    lines.push("");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
