/**
 * Checks a GitHub App JWT as github.com does: RS256 signed by the App's private key
 * (verified with its public key), `iss` the App id, `exp` in the future and at most
 * ten minutes ahead, `iat` not in the future (a minute of clock drift allowed).
 */
import { type KeyObject, verify } from "node:crypto";
import { ForgeError } from "./http";

/** GitHub refuses an `exp` further out than this. */
const MAX_LIFETIME_S = 10 * 60;
const CLOCK_DRIFT_S = 60;

export interface AppJwtCheck {
  appId: string;
  publicKey: KeyObject;
  /** Seconds since the epoch; defaults to now. */
  now?: number;
}

/**
 * Throws a 401 ForgeError naming what is wrong; returns the claims of a valid token.
 *
 * @example verifyAppJwt(jwt, { appId: "4242", publicKey: createPublicKey(pem) })
 */
export function verifyAppJwt(jwt: string, check: AppJwtCheck): { iss: string; iat: number; exp: number } {
  const parts = jwt.split(".");
  if (parts.length !== 3) throw unauthorized("A JSON web token could not be decoded");
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodeJson(headerPart);
  const payload = decodeJson(payloadPart);
  if (header.alg !== "RS256") throw unauthorized("A JSON web token could not be decoded (alg must be RS256)");
  const signed = Buffer.from(`${headerPart}.${payloadPart}`);
  if (!verify("sha256", signed, check.publicKey, Buffer.from(signaturePart, "base64url"))) {
    throw unauthorized("A JSON web token could not be decoded (signature does not match the App's public key)");
  }
  const now = check.now ?? Math.floor(Date.now() / 1000);
  const { iss, iat, exp } = payload;
  if (String(iss) !== check.appId) throw unauthorized(`'Issuer' claim ('iss') must be the App id ${check.appId}`);
  if (typeof exp !== "number" || exp <= now)
    throw unauthorized("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires");
  if (exp > now + MAX_LIFETIME_S + CLOCK_DRIFT_S) throw unauthorized("'Expiration time' claim ('exp') is too far in the future (at most 10 minutes)");
  if (typeof iat !== "number" || iat > now + CLOCK_DRIFT_S) throw unauthorized("'Issued at' claim ('iat') must be a numeric value not in the future");
  return { iss: String(iss), iat, exp };
}

function decodeJson(part: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    if (typeof value === "object" && value !== null) return value as Record<string, unknown>;
  } catch {
    // falls through to the refusal
  }
  throw unauthorized("A JSON web token could not be decoded");
}

function unauthorized(message: string): ForgeError {
  return new ForgeError(401, message);
}
