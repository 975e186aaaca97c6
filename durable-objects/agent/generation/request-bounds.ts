import type { Env } from "../../../bindings/env";
import { attachmentUrlKey, type ImageDelivery, imageDelivery, signAttachmentUrl } from "../../../core/attachments/signed-url";
import { positiveInt } from "../../common/sse-hub";
import { type Hydrate, imageHydrator, r2Images } from "./hydrate";
import { DEFAULT_REPLY_LIMITS, type ReplyLimits } from "./model-call";

/**
 * The bounds of one generation's provider traffic from the object's environment:
 * `MAX_PROVIDER_REQUEST_BYTES` (images included), `MAX_REPLY_BYTES` and
 * `MAX_REPLY_TOOL_CALLS`. Unset or invalid values keep the defaults. With the provider
 * known, images go as signed URLs where it can fetch them (PUBLIC_URL, ATT-005..007).
 *
 * @example
 *   const bounds = generationBounds(env); // once per generation: the image cache lives in it
 *   runGeneration({ ..., provider: { baseURL, apiKey, limits: bounds.replyLimits }, hydrate: bounds.hydrate });
 */
export function generationBounds(
  env: Env,
  provider?: { baseURL: string; model: string },
  now: () => number = Date.now,
): { hydrate: Hydrate; replyLimits: ReplyLimits } {
  const maxRequestBytes = positiveInt(env.MAX_PROVIDER_REQUEST_BYTES);
  const images: ImageDelivery = provider ? imageDelivery({ publicUrl: env.PUBLIC_URL, ...provider }) : { kind: "data", reason: "no_public_url" };
  // Signed by the platform's key; without SECRETS_KEK the store cannot sign, so data URLs (ATT-006).
  const signing = images.kind === "signed" && env.SECRETS_KEK?.trim() ? { key: attachmentUrlKey(env.SECRETS_KEK), publicUrl: images.publicUrl } : null;
  const signedUrl = signing
    ? async (attachmentId: string) => signAttachmentUrl(await signing.key, { publicUrl: signing.publicUrl, attachmentId, now: now() })
    : undefined;
  return {
    hydrate: imageHydrator(r2Images(env.ATTACHMENTS), { ...(maxRequestBytes ? { maxRequestBytes } : {}), ...(signedUrl ? { signedUrl } : {}) }),
    replyLimits: {
      replyBytes: positiveInt(env.MAX_REPLY_BYTES) ?? DEFAULT_REPLY_LIMITS.replyBytes,
      toolCalls: positiveInt(env.MAX_REPLY_TOOL_CALLS) ?? DEFAULT_REPLY_LIMITS.toolCalls,
      reasoningBlocks: DEFAULT_REPLY_LIMITS.reasoningBlocks,
    },
  };
}
