/**
 * Discovery of one stored connection: open its credential, list its server's tools,
 * name them, and store the list (or why it failed) on the connection. Used by the API
 * on create, on a change of URL or token, and on refresh.
 */
import { getConnection, type McpConnectionRow, McpToolNameTaken, recordDiscovery, recordDiscoveryFailure, sealedCredential } from "../db/mcp";
import type { AnyDatabase } from "../db/organisations";
import type { EgressAllowance } from "../providers/egress";
import type { KeySet } from "../secrets/crypto";
import type { McpAuth, McpTransportKind } from "./client";
import { openCredential } from "./credentials";
import { nameTools, ToolNameCollision } from "./names";
import { enabledByDefault, findPreset } from "./presets";

export interface RefreshContext {
  keys: KeySet;
  allow: EgressAllowance;
  /** MCP_PRESETS_URL_OVERRIDES, for the curated list of the connection's preset. */
  presetsSetting?: string;
  timeoutMs?: number;
  /**
   * How an OAuth connection authenticates (its token refreshed as needed). Without it the
   * stored access token is used as it is.
   */
  oauthAuth?: (row: McpConnectionRow) => Promise<McpAuth>;
  fetch?: (input: string | URL, init?: RequestInit) => Promise<Response>;
}

export type RefreshOutcome =
  | { ok: true; row: McpConnectionRow }
  | { ok: false; code: string; message: string; status: "error" | "needs_auth"; row: McpConnectionRow | undefined };

/** The auth a stored connection's requests carry; throws when its credential cannot be opened. */
export async function authOf(row: McpConnectionRow, context: Pick<RefreshContext, "keys" | "oauthAuth">): Promise<McpAuth> {
  if (row.authKind === "none") return { kind: "none" };
  if (row.authKind === "oauth" && context.oauthAuth) return context.oauthAuth(row);
  const sealed = sealedCredential(row);
  if (!sealed) throw new MissingCredential(row.authKind);
  const credential = await openCredential(context.keys, row.organisationId, row.id, sealed);
  if (credential.kind === "bearer") return { kind: "bearer", token: credential.token };
  const token = credential.access_token;
  return { kind: "oauth", accessToken: async () => token };
}

export class MissingCredential extends Error {
  readonly code = "mcp_connection.needs_auth";
  constructor(kind: string) {
    super(kind === "oauth" ? "The connection is not authorised yet: complete its OAuth flow" : "The connection has no token");
  }
}

/** Discovers the connection's tools now and stores them, or stores why it could not. */
export async function refreshConnection(db: AnyDatabase, row: McpConnectionRow, context: RefreshContext): Promise<RefreshOutcome> {
  const failed = async (code: string, message: string, status: "error" | "needs_auth" = "error"): Promise<RefreshOutcome> => ({
    ok: false,
    code,
    message,
    status,
    row: await recordDiscoveryFailure(db, row, status, message),
  });
  let auth: McpAuth;
  try {
    auth = await authOf(row, context);
  } catch (error) {
    if (error instanceof MissingCredential) return failed(error.code, error.message, "needs_auth");
    return failed("mcp_connection.credential_unreadable", "The connection's stored credential cannot be opened; set it again");
  }
  const { discover, McpError } = await import("./client");
  try {
    const found = await discover(
      { url: row.url, auth, transport: (row.transport as McpTransportKind | null) ?? null },
      { allow: context.allow, ...(context.timeoutMs ? { timeoutMs: context.timeoutMs } : {}), ...(context.fetch ? { fetch: context.fetch } : {}) },
    );
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
