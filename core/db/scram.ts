/**
 * The client's side of SCRAM-SHA-256 (RFC 5802, RFC 7677), the handshake a local Postgres asks
 * for (HARDEN-5), computed the cheap way.
 *
 * The driver derives the salted password with 4,096 awaited HMAC calls, about 20 ms of one
 * thread per connection; a thousand agent objects waking together spent most of their CPU
 * there. Here the derivation is one PBKDF2 call, and its result is kept per isolate: it
 * depends only on the password, the salt and the iteration count, which the server repeats on
 * every connection (PgBouncer keeps the same keys for the same reason). The handshake itself
 * is unchanged: a fresh nonce each time, the proof sent, the server's signature checked.
 * Pure WebCrypto, so it runs in workerd and in Node.
 *
 * @example
 *   const { response, serverSignature } = await scramClientFinal(clientNonce, password, serverFirst);
 *   // send response; later, the server's "v=" must equal serverSignature
 */
import { fromBase64, toBase64 } from "../bytes/base64";

/** What the client sends back, and the signature the server's final message must carry. */
export interface ScramFinal {
  response: string;
  serverSignature: string;
}

/**
 * Answers the server's first message. `clientNonce` and `user` are those of the client's first
 * message: the driver sends `n,,n=*,r=<clientNonce>` (Postgres takes the user from the startup).
 *
 * @example await scramClientFinal("rOprNGfwEbeRWgbNEkqO", "pencil", "r=rOprNGfwEbeRWgbNEkqO%hvY...,s=W22Z...,i=4096")
 */
export async function scramClientFinal(clientNonce: string, password: string, serverFirst: string, user = "*"): Promise<ScramFinal> {
  const { nonce, salt, iterations } = parseServerFirst(clientNonce, serverFirst);
  const salted = await saltedPassword(password, salt, iterations);
  const clientKey = await hmac(salted, "Client Key");
  const storedKey = new Uint8Array(await crypto.subtle.digest("SHA-256", clientKey));
  const withoutProof = `c=biws,r=${nonce}`;
  const authMessage = `n=${user},r=${clientNonce},${serverFirst},${withoutProof}`;
  const clientSignature = await hmac(storedKey, authMessage);
  const proof = clientKey.map((byte, i) => byte ^ clientSignature[i]!);
  const serverSignature = await hmac(await hmac(salted, "Server Key"), authMessage);
  return { response: `${withoutProof},p=${toBase64(proof)}`, serverSignature: toBase64(serverSignature) };
}

/**
 * The server's first message, checked as the driver checks it: a nonce that extends ours, a
 * base64 salt, a positive iteration count.
 */
export function parseServerFirst(clientNonce: string, serverFirst: string): { nonce: string; salt: string; iterations: number } {
  const fields = new Map<string, string>();
  for (const part of serverFirst.split(",")) {
    if (!/^.=/.test(part)) throw new Error("SASL: Invalid attribute pair entry");
    fields.set(part[0]!, part.slice(2));
  }
  const nonce = fields.get("r");
  const salt = fields.get("s");
  const iterations = fields.get("i");
  if (!nonce || !/^[!-+--~]+$/.test(nonce)) throw new Error("SASL: SCRAM-SERVER-FIRST-MESSAGE: nonce missing/unprintable");
  if (!salt || !/^(?:[a-zA-Z0-9+/]{4})*(?:[a-zA-Z0-9+/]{2}==|[a-zA-Z0-9+/]{3}=)?$/.test(salt))
    throw new Error("SASL: SCRAM-SERVER-FIRST-MESSAGE: salt missing/not base64");
  if (!iterations || !/^[1-9][0-9]*$/.test(iterations)) throw new Error("SASL: SCRAM-SERVER-FIRST-MESSAGE: missing/invalid iteration count");
  if (!nonce.startsWith(clientNonce)) throw new Error("SASL: SCRAM-SERVER-FIRST-MESSAGE: server nonce does not start with client nonce");
  if (nonce.length === clientNonce.length) throw new Error("SASL: SCRAM-SERVER-FIRST-MESSAGE: server nonce is too short");
  return { nonce, salt, iterations: Number(iterations) };
}

/**
 * Salted passwords already derived in this isolate, by salt and iteration count. Only settled
 * bytes are kept, never a pending promise: a promise made in one object's request would run
 * another object's continuation in the wrong context. Objects that miss at the same moment
 * each derive it (a native call of a millisecond or two).
 */
const derived = new Map<string, { password: string; salted: Uint8Array }>();
/** One database user is the norm; a few cover a rotation. Past this the oldest is dropped. */
const KEEP = 8;

/** Hi(password, salt, i) of RFC 5802: PBKDF2 with HMAC-SHA-256, derived once per isolate. */
async function saltedPassword(password: string, salt: string, iterations: number): Promise<Uint8Array> {
  const key = `${iterations}$${salt}`;
  const known = derived.get(key);
  if (known && known.password === password) return known.salted;
  const salted = await pbkdf2(password, fromBase64(salt), iterations);
  derived.delete(key);
  derived.set(key, { password, salted });
  if (derived.size > KEEP) derived.delete(derived.keys().next().value!);
  return salted;
}

async function pbkdf2(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256));
}

async function hmac(key: Uint8Array, message: string): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, new TextEncoder().encode(message)));
}
