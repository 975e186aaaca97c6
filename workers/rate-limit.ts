import { createMiddleware } from "hono/factory";
import { bearerToken, hashToken } from "../core/auth/tokens";
import type { AppEnv } from "./http/context";
import { ApiError } from "./http/errors";

/**
 * The period of the `[[ratelimits]]` bindings in wrangler.toml, in seconds (10 or 60): the
 * binding does not tell its period, so this constant must match it.
 */
const RATE_LIMIT_PERIOD_S = 10;

/**
 * Per-caller request budget before the database is touched: counters per bearer token
 * (by its hash) and per client address (`cf-connecting-ip`), in the Rate Limiting binding
 * `[[ratelimits]]` API_AUTH_RATE_LIMIT. A flood of junk tokens is refused (429) without a
 * connection or token lookup each; both keys count, as fresh junk tokens would each get a
 * fresh token counter. Without the binding nothing is limited.
 */
export const callerRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const limiter = c.env.API_AUTH_RATE_LIMIT;
  if (limiter) {
    const token = bearerToken(c.req.header("authorization"));
    const address = c.req.header("cf-connecting-ip");
    const keys = [token && `token:${await hashToken(token)}`, address && `ip:${address}`].filter((k): k is string => !!k);
    const answers = await Promise.all(keys.map((key) => limiter.limit({ key })));
    if (answers.some((a) => !a.success)) refuse(c, "Too many requests from this caller");
  }
  await next();
});

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
    if (!success) refuse(c, "Too many requests for this organisation");
  }
  await next();
});

function refuse(c: { header: (name: string, value: string) => void }, reason: string): never {
  const retryAfter = secondsToNextWindow(Date.now(), RATE_LIMIT_PERIOD_S);
  c.header("Retry-After", String(retryAfter));
  throw new ApiError(429, "rate_limited", `${reason}; retry in ${retryAfter} s`, { retry_after_s: retryAfter });
}

/** Counters reset on period boundaries: the wait until the next one, at least 1 s. */
const secondsToNextWindow = (nowMs: number, periodS: number) => Math.max(1, Math.ceil(periodS - ((nowMs / 1000) % periodS)));
