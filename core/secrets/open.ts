import type { SecretValue } from "../output/redaction";
import { type KeySet, openSecret, type SealedValue, SecretDecryptError } from "./crypto";

/** A secret as the generation resolved it, with its stored value if the row still exists. */
export interface ResolvedSecret {
  id: string;
  name: string;
  sealed: SealedValue | undefined;
}

export type OpenedSecrets = { ok: true; values: SecretValue[] } | { ok: false; code: "secret.missing" | "secret.undecryptable"; message: string };

/**
 * Decrypts every secret that reaches the agent for one generation (SEC-002). One that was
 * deleted in between, or that cannot be decrypted (no key set, unknown key version, altered
 * or moved ciphertext), fails the whole start (SEC-004): an agent never runs with part of
 * its environment. Messages name the secret, never a value.
 *
 * @example await openResolvedSecrets(keys, "org-id", [{ id, name: "GITHUB_TOKEN", sealed }]) // { ok: true, values: [{ name: "GITHUB_TOKEN", value: "ghp_…" }] }
 */
export async function openResolvedSecrets(keys: () => Promise<KeySet>, organisationId: string, resolved: ResolvedSecret[]): Promise<OpenedSecrets> {
  if (resolved.length === 0) return { ok: true, values: [] };
  const missing = resolved.find((s) => !s.sealed);
  if (missing) return { ok: false, code: "secret.missing", message: `The secret ${missing.name} was deleted; no model call was made` };
  let keySet: KeySet;
  try {
    keySet = await keys();
  } catch (error) {
    return { ok: false, code: "secret.undecryptable", message: `Secrets cannot be decrypted: ${(error as Error).message}; no model call was made` };
  }
  const values: SecretValue[] = [];
  for (const secret of resolved) {
    try {
      values.push({ name: secret.name, value: await openSecret(keySet, { organisationId, secretId: secret.id }, secret.sealed!) });
    } catch (error) {
      if (!(error instanceof SecretDecryptError)) throw error;
      const why = error.reason === "key_missing" ? `its key version ${secret.sealed!.keyVersion} is not configured` : "its stored value does not verify";
      return { ok: false, code: "secret.undecryptable", message: `The secret ${secret.name} cannot be decrypted (${why}); no model call was made` };
    }
  }
  return { ok: true, values };
}
