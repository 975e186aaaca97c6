import type { Env } from "../../bindings/env";
import type { AnyDatabase } from "../../core/db/client";
import type { McpConnectionRow } from "../../core/db/mcp";
import { oauthAuth } from "../../core/mcp/oauth-access";
import { egressFetch } from "../../core/mcp/oauth-flow";
import { refreshConnection } from "../../core/mcp/refresh";
import { allowanceFrom } from "../../core/providers/egress";
import type { KeySet } from "../../core/secrets/crypto";

/** How OAuth connections authenticate their MCP requests here: tokens refreshed when due, every URL egress-checked. */
export const oauthAuthFor = (env: Env, db: AnyDatabase, keys: KeySet) =>
  oauthAuth({ db, keys, fetch: egressFetch(allowanceFrom(env.ALLOW_PRIVATE_MODEL_URLS)) });

/**
 * After an authorisation: the connection's tools discovered with its new token, recorded as
 * any discovery is. A failure is recorded on the connection (status 'error', or 'needs_auth'
 * when the server refuses the token) and answered, not thrown: the tokens are stored either way.
 */
export async function discoverAfterAuthorisation(
  env: Env,
  db: AnyDatabase,
  keys: KeySet,
  row: McpConnectionRow,
): Promise<Pick<McpConnectionRow, "status" | "lastError">> {
  const outcome = await refreshConnection(db, row, {
    keys,
    allow: allowanceFrom(env.ALLOW_PRIVATE_MODEL_URLS),
    presetsSetting: env.MCP_PRESETS_URL_OVERRIDES,
    oauthAuth: oauthAuthFor(env, db, keys),
  });
  if (outcome.ok) return { status: outcome.row.status, lastError: outcome.row.lastError };
  return { status: outcome.status, lastError: `${outcome.code}: ${outcome.message}` };
}
