/**
 * Discovery of one stored connection: open its credential, list its server's tools,
 * name them, and store the list (or why it failed) on the connection. Used by the API
 * on create, on a change of URL or token, and on refresh.
 */

import type { AnyDatabase } from "../db/client";
import { getConnection, type McpConnectionRow, McpToolNameTaken, recordDiscovery, recordDiscoveryFailure } from "../db/mcp";
import type { EgressAllowance } from "../providers/egress";
import type { McpEndpoint } from "./client";
import { type EndpointContext, endpointOf, MissingCredential, storedOf } from "./endpoint";
import { nameTools, ToolNameCollision } from "./names";
import { enabledByDefault, findPreset } from "./presets";

export interface RefreshContext extends EndpointContext {
  allow: EgressAllowance;
  /** MCP_PRESETS_URL_OVERRIDES, for the curated list of the connection's preset. */
  presetsSetting?: string;
  timeoutMs?: number;
  fetch?: (input: string | URL, init?: RequestInit) => Promise<Response>;
}

export type RefreshOutcome =
  | { ok: true; row: McpConnectionRow }
  | { ok: false; code: string; message: string; status: "error" | "needs_auth"; row: McpConnectionRow | undefined };

/** Discovers the connection's tools now and stores them, or stores why it could not. */
export async function refreshConnection(db: AnyDatabase, row: McpConnectionRow, context: RefreshContext): Promise<RefreshOutcome> {
  const failed = async (code: string, message: string, status: "error" | "needs_auth" = "error"): Promise<RefreshOutcome> => ({
    ok: false,
    code,
    message,
    status,
    row: await recordDiscoveryFailure(db, row, status, message),
  });
  let endpoint: McpEndpoint;
  try {
    endpoint = await endpointOf(storedOf(row), context);
  } catch (error) {
    if (error instanceof MissingCredential) return failed(error.code, error.message, "needs_auth");
    return failed("mcp_connection.credential_unreadable", "The connection's stored credential cannot be opened; set it again");
  }
  const { discover, McpError } = await import("./client");
  try {
    const found = await discover(endpoint, {
      allow: context.allow,
      ...(context.timeoutMs ? { timeoutMs: context.timeoutMs } : {}),
      ...(context.fetch ? { fetch: context.fetch } : {}),
    });
    const named = nameTools(row.slug, found.tools);
    const preset = row.preset ? findPreset(row.preset, context.presetsSetting) : null;
    await recordDiscovery(
      db,
      row,
      {
        transport: found.transport,
        serverInfo: found.serverInfo,
        instructions: found.instructions,
        tools: named.map((t) => ({
          name: t.toolName,
          remoteName: t.name,
          title: t.title,
          description: t.description,
          inputSchema: t.inputSchema,
          outputSchema: t.outputSchema,
          annotations: t.annotations,
        })),
      },
      (remoteName) => enabledByDefault(preset, remoteName),
    );
    return { ok: true, row: (await getConnection(db, row.organisationId, row.id))! };
  } catch (error) {
    if (error instanceof ToolNameCollision || error instanceof McpToolNameTaken) return failed(error.code, error.message);
    if (error instanceof McpError)
      return failed(error.code, error.message, error.code === "mcp.unauthorized" && row.authKind === "oauth" ? "needs_auth" : "error");
    throw error;
  }
}
