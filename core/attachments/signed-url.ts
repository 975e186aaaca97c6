/**
 * Images as providers fetch them (ATT-005..007): a short-lived signed URL of the platform's
 * attachment route, or a data URL where a signed one cannot work. The signature is an HMAC
 * of the attachment id and the expiry under a key of its own, derived from SECRETS_KEK
 * (core/auth/signing.ts); the route that serves it needs no bearer token and says nothing
 * but "not valid" to a link that is forged, altered or expired. Pure: WebCrypto only.
 */
import { base64url, derivedHmacKey, fromBase64url, type HmacKey } from "../auth/signing";
import { addressKind } from "../providers/egress";

/** How long a signed image URL opens its image (ATT-005). */
export const ATTACHMENT_URL_TTL_MS = 15 * 60 * 1000;

/** The route's path under the platform's public URL; the query carries expires and signature. */
export const signedAttachmentPath = (attachmentId: string) => `/api/attachments/${attachmentId}/signed`;

/** The key of signed image URLs: never the key that seals secrets, nor a view ticket's. Kept per isolate. */
export const attachmentUrlKey = (secret: string | undefined): Promise<HmacKey> => derivedHmacKey(secret, "guilds attachment url v1");

const payload = (attachmentId: string, expires: number) => new TextEncoder().encode(`attachment1:${attachmentId.toLowerCase()}:${expires}`);

/**
 * The URL a provider fetches the image from, valid for 15 minutes from `now` (ms).
 *
 * @example await signAttachmentUrl(key, { publicUrl: "https://guilds.example", attachmentId: id, now: Date.now() })
 * // "https://guilds.example/api/attachments/<id>/signed?expires=1796300000&signature=…"
 */
export async function signAttachmentUrl(key: HmacKey, input: { publicUrl: string; attachmentId: string; now: number }): Promise<string> {
  const expires = Math.floor((input.now + ATTACHMENT_URL_TTL_MS) / 1000);
  const signature = base64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, payload(input.attachmentId, expires))));
  const base = input.publicUrl.replace(/\/+$/, "");
  return `${base}${signedAttachmentPath(input.attachmentId.toLowerCase())}?expires=${expires}&signature=${signature}`;
}

/**
 * Whether the link was signed by this platform for this attachment and is still valid at
 * `now` (ms). Any malformed part is simply not valid.
 */
export async function verifyAttachmentUrl(
  key: HmacKey,
  input: { attachmentId: string; expires: string | undefined; signature: string | undefined; now: number },
): Promise<boolean> {
  if (!input.expires || !/^\d{1,12}$/.test(input.expires)) return false;
  if (!input.signature || !/^[A-Za-z0-9_-]{43}$/.test(input.signature)) return false;
  const expires = Number(input.expires);
  if (!(expires * 1000 > input.now)) return false;
  // A link cannot claim more than the TTL from now: a forged far expiry still fails the signature, and an honest one never asks for it.
  if (expires * 1000 > input.now + ATTACHMENT_URL_TTL_MS + 60_000) return false;
  return crypto.subtle.verify("HMAC", key, fromBase64url(input.signature), payload(input.attachmentId, expires));
}

/** How a generation's images travel, and why. */
export type ImageDelivery = { kind: "signed"; publicUrl: string } | { kind: "data"; reason: "no_public_url" | "kimi" | "local_provider" | "local_platform" };

/**
 * Signed URLs where the provider can fetch them; data URLs otherwise (ATT-006): when the
 * platform has no public URL (PUBLIC_URL), when that URL is itself loopback or private,
 * when the provider is served from a loopback or private address (it may not reach ours),
 * and always for Kimi, which refuses public image URLs (ATT-007).
 *
 * @example imageDelivery({ publicUrl: "https://guilds.example", baseURL: "https://api.openai.com/v1", model: "gpt-4.1" }) // { kind: "signed", publicUrl: "https://guilds.example" }
 * @example imageDelivery({ publicUrl: "https://guilds.example", baseURL: "http://127.0.0.1:11434/v1", model: "llava" }) // { kind: "data", reason: "local_provider" }
 */
export function imageDelivery(input: { publicUrl: string | undefined; baseURL: string; model: string }): ImageDelivery {
  if (isKimi(input.model, input.baseURL)) return { kind: "data", reason: "kimi" };
  const publicUrl = input.publicUrl?.trim();
  const platform = publicUrl ? hostOf(publicUrl) : null;
  if (!publicUrl || platform === null) return { kind: "data", reason: "no_public_url" };
  if (addressKind(platform) !== null) return { kind: "data", reason: "local_platform" };
  const provider = hostOf(input.baseURL);
  if (provider === null || addressKind(provider) !== null) return { kind: "data", reason: "local_provider" };
  return { kind: "signed", publicUrl };
}

/** Kimi by its model name (any provider serving it) or by Moonshot's API host. */
export function isKimi(model: string, baseURL: string): boolean {
  if (/kimi/i.test(model)) return true;
  const host = hostOf(baseURL);
  return host !== null && /(^|\.)moonshot\.(ai|cn)$/i.test(host);
}

function hostOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.hostname : null;
  } catch {
    return null;
  }
}
