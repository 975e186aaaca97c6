/**
 * From a stored connection to what core/mcp/client.ts opens: its URL, remembered
 * transport, and auth with the credential opened. Discovery and runs both go through here.
 */
import type { McpConnectionRow } from "../db/mcp";
import { sealedCredential } from "../db/mcp";
import type { KeySet, SealedValue } from "../secrets/crypto";
import type { McpAuth, McpEndpoint, McpTransportKind } from "./client";
import { openCredential } from "./credentials";

export interface EndpointContext {
  keys: KeySet;
  /**
   * How an OAuth connection authenticates (its token refreshed as needed). Without it the
   * stored access token is used as it is.
   */
  oauthAuth?: (connection: StoredConnection) => Promise<McpAuth>;
}

/** What opening a stored connection needs: a connection row and an agent's connection both have it. */
export interface StoredConnection {
  id: string;
  organisationId: string;
  url: string;
  transport: string | null;
  authKind: string;
  credential: SealedValue | null;
}

/** A connection row as a StoredConnection. */
export const storedOf = (row: McpConnectionRow): StoredConnection => ({
  id: row.id,
  organisationId: row.organisationId,
  url: row.url,
  transport: row.transport,
  authKind: row.authKind,
  credential: sealedCredential(row),
});

/** The auth a stored connection's requests carry; throws MissingCredential, or SecretDecryptError when it cannot be opened. */
export async function authOf(connection: StoredConnection, context: EndpointContext): Promise<McpAuth> {
  if (connection.authKind === "none") return { kind: "none" };
  if (connection.authKind === "oauth" && context.oauthAuth) return context.oauthAuth(connection);
  if (!connection.credential) throw new MissingCredential(connection.authKind);
  const credential = await openCredential(context.keys, connection.organisationId, connection.id, connection.credential);
  if (credential.kind === "bearer") return { kind: "bearer", token: credential.token };
  const token = credential.access_token;
  return { kind: "oauth", accessToken: async () => token };
}

/**
 * Where and how to open a stored connection (core/mcp/client.ts connect). A run builds it
 * from connectionsForAgent's entries.
 *
 * @example const session = await connect(await endpointOf(agentConnection, { keys }), { allow })
 */
export async function endpointOf(connection: StoredConnection, context: EndpointContext): Promise<McpEndpoint> {
  return { url: connection.url, auth: await authOf(connection, context), transport: (connection.transport as McpTransportKind | null) ?? null };
}

export class MissingCredential extends Error {
  readonly code = "mcp_connection.needs_auth";
  constructor(kind: string) {
    super(kind === "oauth" ? "The connection is not authorised yet: complete its OAuth flow" : "The connection has no token");
  }
}
