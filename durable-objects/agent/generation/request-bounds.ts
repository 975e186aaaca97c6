import type { Env } from "../../../bindings/env";
import { positiveInt } from "../../common/sse-hub";
import { type Hydrate, imageHydrator, r2Images } from "./hydrate";
import { DEFAULT_REPLY_LIMITS, type ReplyLimits } from "./model-call";

/**
 * The bounds of one generation's provider traffic from the object's environment:
 * `MAX_PROVIDER_REQUEST_BYTES` (images included), `MAX_REPLY_BYTES` and
 * `MAX_REPLY_TOOL_CALLS`. Unset or invalid values keep the defaults.
 *
 * @example
 *   const bounds = generationBounds(env); // once per generation: the image cache lives in it
 *   runGeneration({ ..., provider: { baseURL, apiKey, limits: bounds.replyLimits }, hydrate: bounds.hydrate });
 */
export function generationBounds(env: Env): { hydrate: Hydrate; replyLimits: ReplyLimits } {
  const maxRequestBytes = positiveInt(env.MAX_PROVIDER_REQUEST_BYTES);
  return {
    hydrate: imageHydrator(r2Images(env.ATTACHMENTS), maxRequestBytes ? { maxRequestBytes } : {}),
    replyLimits: {
      replyBytes: positiveInt(env.MAX_REPLY_BYTES) ?? DEFAULT_REPLY_LIMITS.replyBytes,
      toolCalls: positiveInt(env.MAX_REPLY_TOOL_CALLS) ?? DEFAULT_REPLY_LIMITS.toolCalls,
      reasoningBlocks: DEFAULT_REPLY_LIMITS.reasoningBlocks,
    },
  };
}
