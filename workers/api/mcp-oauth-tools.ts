import type { Env } from "../../bindings/env";
import type { Database } from "../../core/db/client";
import { type McpConnectionRow, McpToolNameTaken, recordDiscovery, recordDiscoveryFailure } from "../../core/db/mcp";
import { discover, McpError } from "../../core/mcp/client";
import { nameTools, ToolNameCollision } from "../../core/mcp/names";
import { accessToken } from "../../core/mcp/oauth-access";
import { egressFetch, OAuthError } from "../../core/mcp/oauth-flow";
import { enabledByDefault, findPreset } from "../../core/mcp/presets";
import { allowanceFrom } from "../../core/providers/egress";
import type { KeySet } from "../../core/secrets/crypto";

/**
 * After an authorisation: the connection's tools discovered with its new access token (which
 * accessToken refreshes when due), recorded as any discovery is. A failure is recorded on the
 * connection (status 'error', or 'needs_auth' when the server refuses the token) and
 * answered, not thrown: the tokens are stored either way.
 */
export async function discoverAfterAuthorisation(
  env: Env & { MCP_PRESETS_URL_OVERRIDES?: string },
  db: Database,
  keys: KeySet,
  row: McpConnectionRow,
): Promise<Pick<McpConnectionRow, "status" | "lastError">> {
  const allow = allowanceFrom(env.ALLOW_PRIVATE_MODEL_URLS);
  try {
    const found = await discover(
      {
        url: row.url,
        transport: row.transport as "streamable_http" | "sse" | null,
        auth: { kind: "oauth", accessToken: () => accessToken(row, { db, keys, fetch: egressFetch(allow) }) },
      },
      { allow },
    );
    const tools = nameTools(row.slug, found.tools).map((t) => ({
      name: t.toolName,
      remoteName: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations,
    }));
    const preset = row.preset ? findPreset(row.preset, env.MCP_PRESETS_URL_OVERRIDES) : null;
    await recordDiscovery(db, row, { transport: found.transport, serverInfo: found.serverInfo, instructions: found.instructions, tools }, (name) =>
      enabledByDefault(preset, name),
    );
    return { status: "ready", lastError: null };
  } catch (error) {
    const known = error instanceof McpError || error instanceof OAuthError || error instanceof ToolNameCollision || error instanceof McpToolNameTaken;
    if (!known) throw error;
    const status =
      (error instanceof McpError && error.code === "mcp.unauthorized") || (error instanceof OAuthError && error.kind === "refused") ? "needs_auth" : "error";
    await recordDiscoveryFailure(db, row, status, error.message);
    return { status, lastError: error.message };
  }
}
