import { base64url } from "../auth/signing";
/**
 * The GitHub App's JSON Web Token (RS256), signed with WebCrypto so it runs in the Worker.
 * GitHub issues App keys as PKCS#1 ("BEGIN RSA PRIVATE KEY"); WebCrypto imports PKCS#8 only,
 * so a PKCS#1 key is wrapped in the PKCS#8 envelope first.
 *
 * @example
 *   const key = await importAppKey(env.GITHUB_APP_PRIVATE_KEY);
 *   const jwt = await appJwt(key, "12345"); // "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.…"
 */

/** GitHub refuses an App JWT that reaches more than 10 minutes ahead; 9 leaves room for clock skew. */
export const JWT_LIFETIME_S = 9 * 60;
/** Backdated so a GitHub clock slightly behind ours still sees the token as issued. */
export const JWT_BACKDATE_S = 60;

/** A private key that is not a PEM of an RSA key; the message never repeats the key. */
export class AppKeyError extends Error {
  override readonly name = "AppKeyError";
}

/** rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters, DER: PKCS#8's AlgorithmIdentifier. */
const RSA_ALGORITHM_IDENTIFIER = [0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00];
/** INTEGER 0: PrivateKeyInfo's version. */
const VERSION_0 = [0x02, 0x01, 0x00];

/** A DER length: short form under 128, else 0x80|n followed by n big-endian bytes. */
function derLength(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return [0x80 | bytes.length, ...bytes];
}

/**
 * PKCS#8 PrivateKeyInfo around a PKCS#1 RSAPrivateKey:
 * SEQUENCE { INTEGER 0, AlgorithmIdentifier rsaEncryption, OCTET STRING <pkcs1> }.
 */
export function pkcs1ToPkcs8(pkcs1: Uint8Array): Uint8Array {
  const octetString = [0x04, ...derLength(pkcs1.length)];
  const bodyLength = VERSION_0.length + RSA_ALGORITHM_IDENTIFIER.length + octetString.length + pkcs1.length;
  const head = [0x30, ...derLength(bodyLength), ...VERSION_0, ...RSA_ALGORITHM_IDENTIFIER, ...octetString];
  const out = new Uint8Array(head.length + pkcs1.length);
  out.set(head, 0);
  out.set(pkcs1, head.length);
  return out;
}

/** The key type of both runtimes' WebCrypto (the Worker's and Node's types name it differently). */
export type SigningKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

const PEM = /-----BEGIN (RSA PRIVATE KEY|PRIVATE KEY)-----([A-Za-z0-9+/=\s]+)-----END \1-----/;

/** The PKCS#8 DER of a PEM private key in either form GitHub and OpenSSL write. */
export function pemToPkcs8(pem: string): Uint8Array {
  // Secret stores often keep a PEM on one line with literal "\n".
  const match = PEM.exec(pem.replace(/\\n/g, "\n"));
  if (!match) throw new AppKeyError('The GitHub App private key is not a PEM "RSA PRIVATE KEY" or "PRIVATE KEY"');
  let der: Uint8Array;
  try {
    der = Uint8Array.from(atob(match[2]!.replace(/\s+/g, "")), (ch) => ch.charCodeAt(0));
  } catch {
    throw new AppKeyError("The GitHub App private key's PEM body is not base64");
  }
  return match[1] === "RSA PRIVATE KEY" ? pkcs1ToPkcs8(der) : der;
}

/** Imports the App's private key for RS256 signing (not extractable). */
export async function importAppKey(pem: string): Promise<SigningKey> {
  const pkcs8 = pemToPkcs8(pem);
  try {
    return await crypto.subtle.importKey("pkcs8", pkcs8, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
  } catch {
    throw new AppKeyError("The GitHub App private key is not a valid RSA private key");
  }
}

const encodeJson = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));

/** An App JWT: `iss` the App id, issued 60 s ago, expiring 9 minutes from now. */
export async function appJwt(key: SigningKey, appId: string, now: Date = new Date()): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000) - JWT_BACKDATE_S;
  const signingInput = `${encodeJson({ alg: "RS256", typ: "JWT" })}.${encodeJson({ iat, exp: iat + JWT_BACKDATE_S + JWT_LIFETIME_S, iss: appId })}`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(signingInput));
  return `${signingInput}.${base64url(new Uint8Array(signature))}`;
}
