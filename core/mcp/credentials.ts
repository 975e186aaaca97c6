/**
 * A connection's credential, sealed like a secret value (core/secrets/crypto.ts) in
 * `mcp_connections.credential_*` as JSON. The binding names the connection, so a sealed
 * credential copied onto another row (or a secret's row) does not open.
 */
import { type KeySet, openSecret, type SealedValue, sealSecret } from "../secrets/crypto";

export type McpCredential = { kind: "bearer"; token: string } | { kind: "oauth"; access_token: string; refresh_token?: string; client_secret?: string };

/** The binding of a connection's credential: distinct from every secret's (those are uuids alone). */
export const credentialBinding = (organisationId: string, connectionId: string) => ({ organisationId, secretId: `mcp:${connectionId}` });

/** The binding of an OAuth state's PKCE verifier. */
export const verifierBinding = (organisationId: string, nonce: string) => ({ organisationId, secretId: `mcp-oauth-state:${nonce}` });

export async function sealCredential(keys: KeySet, organisationId: string, connectionId: string, credential: McpCredential): Promise<SealedValue> {
  return sealSecret(keys, credentialBinding(organisationId, connectionId), JSON.stringify(credential));
}

/** Opens a stored credential; throws SecretDecryptError when it cannot. */
export async function openCredential(keys: KeySet, organisationId: string, connectionId: string, sealed: SealedValue): Promise<McpCredential> {
  return JSON.parse(await openSecret(keys, credentialBinding(organisationId, connectionId), sealed)) as McpCredential;
}

/** The token values of a credential, for the redaction set. */
export function credentialTokens(credential: McpCredential): string[] {
  if (credential.kind === "bearer") return [credential.token];
  return [credential.access_token, credential.refresh_token, credential.client_secret].filter((v): v is string => typeof v === "string" && v !== "");
}
