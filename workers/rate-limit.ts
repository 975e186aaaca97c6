import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";

/** The period of the API_RATE_LIMIT binding in wrangler.toml, in seconds (10 or 60). */
export const RATE_LIMIT_PERIOD_S = 10;

/**
 * Per-organisation request budget, after authentication: each organisation has its own
 * counter in the Rate Limiting binding (`[[ratelimits]]` API_RATE_LIMIT), so one
 * tenant's flood is refused (429 `rate_limited`, `Retry-After`) without slowing others.
 * Without the binding nothing is limited.
 */
export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const limiter = c.env.API_RATE_LIMIT;
  if (limiter) {
    const { success } = await limiter.limit({ key: `org:${c.get("organisationId")}` });
    if (!success) {
      const retryAfter = secondsToNextWindow(Date.now(), RATE_LIMIT_PERIOD_S);
      c.header("Retry-After", String(retryAfter));
      throw new ApiError(429, "rate_limited", `Too many requests for this organisation; retry in ${retryAfter} s`, { retry_after_s: retryAfter });
    }
  }
  await next();
});

/** Counters reset on period boundaries: the wait until the next one, at least 1 s. */
export const secondsToNextWindow = (nowMs: number, periodS: number) =>
  Math.max(1, Math.ceil(periodS - (nowMs / 1000) % periodS));
