/**
 * The names a model sees for a connection's tools: `<slug>__<tool>`, limited to the
 * characters and length every provider accepts for a function name ([A-Za-z0-9_-], 64).
 * Pure: discovery, the API and the run snapshot all name tools through here.
 */

/** A connection's slug: lowercase, starts with a letter, at most 24 characters, no `__`. */
export const SLUG_PATTERN = /^[a-z][a-z0-9_-]{0,23}$/;

export const MAX_TOOL_NAME = 64;
const SEPARATOR = "__";
const HASH_LENGTH = 6;

/**
 * Why a slug is refused, or null when it is fine. `__` is refused because it separates the
 * slug from the tool, and a slug holding it would make one name readable two ways.
 *
 * @example slugIssue("coingecko") // null
 * @example slugIssue("my__tools") // "must not contain __"
 */
export function slugIssue(slug: string): string | null {
  if (!SLUG_PATTERN.test(slug)) return "must start with a lowercase letter and hold only a-z, 0-9, _ and - (at most 24 characters)";
  if (slug.includes(SEPARATOR)) return "must not contain __";
  return null;
}

/**
 * Whether `name` could be an MCP tool's model-facing name: every one holds the separator, so
 * a name without it needs no look-up.
 *
 * @example couldNameMcpTool("coingecko__price") // true
 * @example couldNameMcpTool("add_numbers") // false
 */
export function couldNameMcpTool(name: string): boolean {
  return name.includes(SEPARATOR);
}

/**
 * The model-facing name of a remote tool. Characters outside [A-Za-z0-9_-] become `_`; a
 * name longer than 64 keeps its first characters and ends with `_` and a short hash of the
 * whole remote name, so the cut is the same at every discovery and two long names that
 * share their start still differ.
 *
 * @example toolName("coingecko", "get_simple_price") // "coingecko__get_simple_price"
 * @example toolName("web", "search.v2") // "web__search_v2"
 */
export function toolName(slug: string, remoteName: string): string {
  const full = `${slug}${SEPARATOR}${remoteName.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  const suffix = `_${shortHash(remoteName)}`;
  return full.slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
}

/** Two remote tools of one server that would reach the model under one name. */
export class ToolNameCollision extends Error {
  readonly code = "mcp.tool_name_collision";
  constructor(
    readonly toolName: string,
    readonly first: string,
    readonly second: string,
  ) {
    super(`The server's tools "${first}" and "${second}" would both be named ${toolName}; rename one on the server`);
    this.name = "ToolNameCollision";
  }
}

/**
 * Names each listed tool, in the server's order; throws ToolNameCollision when two remote
 * names give one model-facing name (or the server lists a name twice).
 *
 * @example nameTools("s", [{ name: "a.b" }, { name: "a_b" }]) // throws ToolNameCollision naming "a.b" and "a_b"
 */
export function nameTools<T extends { name: string }>(slug: string, tools: readonly T[]): Array<T & { toolName: string }> {
  const seen = new Map<string, string>();
  return tools.map((tool) => {
    const name = toolName(slug, tool.name);
    const earlier = seen.get(name);
    if (earlier !== undefined) throw new ToolNameCollision(name, earlier, tool.name);
    seen.set(name, tool.name);
    return { ...tool, toolName: name };
  });
}

/** FNV-1a over the UTF-16 units, base 36: short, stable across runtimes, not a security hash. */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36).padStart(HASH_LENGTH, "0").slice(-HASH_LENGTH);
}
