/**
 * Secret values at rest (OP-SEC-4): AES-256-GCM with a random 96-bit IV per value, under a
 * key-encryption key held as a Worker secret. Web Crypto only, so it runs in Node and workerd.
 *
 * The key set is versioned for rotation: values are encrypted with the newest key and
 * decrypted with the key of the version stored beside them. The additional data binds a
 * ciphertext to its organisation and secret id, so a value copied onto another row fails.
 */
import { fromBase64, toBase64 } from "../bytes/base64";

/** Thrown when no key matches, the key is malformed, or the value was altered or moved. */
export class SecretDecryptError extends Error {
  constructor(readonly reason: "key_missing" | "tampered") {
    super(reason === "key_missing" ? "No key-encryption key of that version" : "The secret value cannot be decrypted");
  }
}

export interface KeySet {
  /** The version new values are encrypted with, as SECRETS_KEK spells it (stored beside each value). */
  current: string;
  /** By keyVersionId: `v1` and `1` find the same key. */
  keys: Map<string, AesKey>;
}

export interface SealedValue {
  ciphertext: string;
  iv: string;
  keyVersion: string;
}

/** Which row a value belongs to; part of the authenticated data. */
export interface SecretBinding {
  organisationId: string;
  secretId: string;
}

/** Web Crypto's key type, named through the API so Node and workerd typings agree. */
type AesKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

const VERSIONED = /^([A-Za-z0-9_-]+):(.+)$/;

/**
 * One key version however it is spelled: `v1` and `1` are the same version, since a single
 * unversioned key seals its values as `1` and the rotation that follows names it `v1`.
 *
 * @example keyVersionId("v2") // "2"
 * @example keyVersionId("2026a") // "2026a"
 */
export function keyVersionId(version: string): string {
  return /^[vV]\d+$/.test(version) ? version.slice(1) : version;
}

/** Whether a stored value is sealed under the key set's current key. */
export const sealedUnderCurrent = (keys: KeySet, version: string): boolean => keyVersionId(version) === keyVersionId(keys.current);

/**
 * Reads the key set from `SECRETS_KEK`: either one base64 key (version "1"), or a comma
 * list of `version:base64` entries whose last entry is the current key.
 * `SECRETS_KEK_PREVIOUS` (same forms) adds older keys still needed to decrypt.
 * A version given twice, across both and in either spelling (`v1`, `1`), is refused: which
 * key it means would be a guess, and a wrong guess leaves values undecryptable.
 *
 * @example await parseKeySet("v1:AAAA...,v2:BBBB...") // { current: "v2", keys: Map(2) }
 */
export async function parseKeySet(kek: string | undefined, previous?: string): Promise<KeySet> {
  if (!kek?.trim()) throw new Error("SECRETS_KEK is not set");
  const keys = new Map<string, AesKey>();
  const seen = new Map<string, string>();
  for (const [version, raw] of [...entries(previous ?? ""), ...entries(kek)]) {
    const id = keyVersionId(version);
    const first = seen.get(id);
    if (first !== undefined) {
      const same = first === version ? "" : ` (${first} and ${version} are one version)`;
      throw new Error(`SECRETS_KEK and SECRETS_KEK_PREVIOUS name key version ${version} twice${same}; give each version once`);
    }
    seen.set(id, version);
    keys.set(id, await importKey(version, raw));
  }
  const own = entries(kek);
  return { current: own[own.length - 1]![0], keys };
}

function entries(text: string): [string, string][] {
  const parts = text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 1 && !VERSIONED.test(parts[0]!)) return [["1", parts[0]!]];
  return parts.map((p) => {
    const m = VERSIONED.exec(p);
    if (!m) throw new Error("SECRETS_KEK entries must all be version:base64");
    return [m[1]!, m[2]!];
  });
}

async function importKey(version: string, base64: string): Promise<AesKey> {
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(base64);
  } catch {
    throw new Error(`SECRETS_KEK version ${version} is not base64`);
  }
  if (bytes.length !== 32) throw new Error(`SECRETS_KEK version ${version} must be 32 bytes`);
  return crypto.subtle.importKey("raw", bytes, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** Encrypts a value for one secret row with the newest key. */
export async function sealSecret(keys: KeySet, binding: SecretBinding, value: string): Promise<SealedValue> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = keys.keys.get(keyVersionId(keys.current))!;
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad(binding) }, key, new TextEncoder().encode(value));
  return { ciphertext: toBase64(new Uint8Array(sealed)), iv: toBase64(iv), keyVersion: keys.current };
}

/** Decrypts a stored value; throws SecretDecryptError when it cannot. */
export async function openSecret(keys: KeySet, binding: SecretBinding, sealed: SealedValue): Promise<string> {
  const key = keys.keys.get(keyVersionId(sealed.keyVersion));
  if (!key) throw new SecretDecryptError("key_missing");
  try {
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64(sealed.iv), additionalData: aad(binding) }, key, fromBase64(sealed.ciphertext));
    return new TextDecoder().decode(plain);
  } catch {
    throw new SecretDecryptError("tampered");
  }
}

const aad = (b: SecretBinding) => new TextEncoder().encode(`secret:${b.organisationId}:${b.secretId}`);

const parsed = new Map<string, Promise<KeySet>>();

/**
 * parseKeySet, kept per isolate: importing keys on every request would cost each one a
 * round of Web Crypto work. A failed parse is not kept, so fixing the secret takes effect.
 */
export function keySetFrom(kek: string | undefined, previous?: string): Promise<KeySet> {
  const cacheKey = `${kek ?? ""}\n${previous ?? ""}`;
  let keys = parsed.get(cacheKey);
  if (!keys) {
    keys = parseKeySet(kek, previous);
    keys.catch(() => parsed.delete(cacheKey));
    parsed.set(cacheKey, keys);
  }
  return keys;
}
