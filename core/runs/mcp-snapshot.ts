/**
 * What a run takes from the MCP connections reaching its agent at creation (EXACT-021,
 * EXACT-023): the enabled tools' schemas, offered after the native and script tools, and
 * the slim list `mcp` the agent object dispatches calls by. Both are frozen with the
 * snapshot: a server changing its tools later changes no run that exists.
 */
import type { OfferedTool, RunSnapshot } from "./snapshot";

/** One ready connection reaching the agent, as the opening reads it, with its enabled tools in listing order. */
export interface McpReach {
  connection_id: string;
  slug: string;
  url: string;
  tools: Array<{ name: string; remote_name: string; description: string; input_schema: unknown; output_schema?: unknown }>;
}

export type McpSnapshotEntry = RunSnapshot["mcp"][number];

/**
 * The server a snapshot's tools came from: the connection URL's origin and path. Not the
 * name and version the server reports: a server upgrading itself is still the same server,
 * and its frozen schemas stay callable, while a connection edited to point elsewhere is not
 * (its calls are refused rather than sent to a server whose tools the run never saw). The
 * query and fragment are left out: some servers take an API key there, and the snapshot
 * holds no credential.
 *
 * @example mcpServerId("https://mcp.example.com/v1/mcp?key=abc") // "https://mcp.example.com/v1/mcp"
 */
export function mcpServerId(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url.split(/[?#]/, 1)[0] ?? url;
  }
}

/**
 * The schemas and slim list of a run's MCP tools: connections by slug, each one's tools in
 * the server's listing order (EXACT-005: the same connections always give the same list). A
 * name already offered (a native tool) is skipped; a connection left with no tool is not
 * listed. A server's description is offered as the tool's description and nowhere else: it
 * is untrusted text, never part of the system prompt.
 *
 * @example mcpSnapshot([{ connection_id, slug: "demo", url, tools: [{ name: "demo__echo", remote_name: "echo", description: "Echo", input_schema: {} }] }], new Set())
 * // { tools: [{ type: "function", function: { name: "demo__echo", description: "Echo", parameters: { type: "object" } } }],
 * //   mcp: [{ connection_id, server_id, slug: "demo", tools: [{ name: "demo__echo", remote_name: "echo" }] }] }
 */
export function mcpSnapshot(connections: readonly McpReach[], taken: ReadonlySet<string>): { tools: OfferedTool[]; mcp: McpSnapshotEntry[] } {
  const tools: OfferedTool[] = [];
  const mcp: McpSnapshotEntry[] = [];
  const names = new Set(taken);
  for (const connection of [...connections].sort((a, b) => cmp(a.slug, b.slug))) {
    const entry: McpSnapshotEntry = { connection_id: connection.connection_id, server_id: mcpServerId(connection.url), slug: connection.slug, tools: [] };
    for (const tool of connection.tools) {
      if (names.has(tool.name)) continue;
      names.add(tool.name);
      tools.push({ type: "function", function: { name: tool.name, description: tool.description ?? "", parameters: offeredParameters(tool.input_schema) } });
      const output = tool.output_schema;
      // Frozen with the run, so a call's structuredContent is checked against what the run was offered.
      const outputSchema = output && typeof output === "object" && !Array.isArray(output) ? { output_schema: output as Record<string, unknown> } : {};
      entry.tools.push({ name: tool.name, remote_name: tool.remote_name, ...outputSchema });
    }
    if (entry.tools.length) mcp.push(entry);
  }
  return { tools, mcp };
}

/** The names of a snapshot's MCP tools. */
export function mcpToolNames(mcp: RunSnapshot["mcp"] | undefined): Set<string> {
  return new Set((mcp ?? []).flatMap((c) => c.tools.map((t) => t.name)));
}

/**
 * The connection, remote name and frozen output schema behind an offered MCP tool name, or
 * null when the name is none of them.
 */
export function mcpTarget(
  mcp: RunSnapshot["mcp"] | undefined,
  name: string,
): { entry: McpSnapshotEntry; remoteName: string; outputSchema: Record<string, unknown> | null } | null {
  for (const entry of mcp ?? []) {
    const tool = entry.tools.find((t) => t.name === name);
    if (tool) return { entry, remoteName: tool.remote_name, outputSchema: tool.output_schema ?? null };
  }
  return null;
}

/**
 * A server's input schema as a Chat Completions `parameters` object: always an object
 * schema (providers refuse anything else), without `$schema`.
 */
function offeredParameters(schema: unknown): Record<string, unknown> {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return { type: "object" };
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  return rest.type === "object" ? rest : { ...rest, type: "object" };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
