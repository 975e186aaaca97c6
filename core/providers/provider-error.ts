/**
 * What a run keeps of a provider's error answer. The body comes from a server the tenant
 * may run, so it is never stored as sent: one line, known secrets and key-shaped tokens
 * masked, at most MAX_PROVIDER_MESSAGE characters. The HTTP status is kept beside it.
 */
import type { Redactor } from "../output/redaction";

export const MAX_PROVIDER_MESSAGE = 200;

/** Shapes of API keys and bearer credentials, masked even when not in the redaction set. */
const KEY_SHAPES = [/\bBearer\s+[^\s"',;]+/gi, /\b(?:sk|pk|rk|gsk)[-_][A-Za-z0-9_-]{12,}/g];

/**
 * The run error's message for a provider failure.
 *
 * @example providerErrorMessage("model provider answered 401: bad key sk-live-0123456789abcdef\n<html>…", Redactor.none)
 * // "model provider answered 401: bad key [REDACTED] <html>…"
 */
export function providerErrorMessage(raw: string, redactor: Redactor): string {
  // Redact before cutting, so no half of a secret survives the cut.
  let text = redactor.redact(raw);
  for (const shape of KEY_SHAPES) text = text.replace(shape, (match) => (/^bearer/i.test(match) ? "Bearer [REDACTED]" : "[REDACTED]"));
  text = text.replace(/[\u0000-\u001f\u007f\s]+/g, " ").trim();
  return text.length <= MAX_PROVIDER_MESSAGE ? text : `${text.slice(0, MAX_PROVIDER_MESSAGE - 1)}…`;
}

/**
 * When a rate-limited provider (429) says its limit resets, as epoch ms (TASK-027): from
 * `retry-after` (seconds or an HTTP date), else `x-ratelimit-reset` (epoch seconds or ms,
 * or seconds from now when small), else the `x-ratelimit-reset-requests`/`-tokens` durations
 * ("1s", "6m0s", "250ms"). Null when none says it.
 *
 * @example rateLimitResetAt({ get: (n) => (n === "retry-after" ? "30" : null) }, 0) // 30_000
 */
export function rateLimitResetAt(headers: { get(name: string): string | null } | null | undefined, now: number): number | null {
  if (!headers) return null;
  const retryAfter = headers.get("retry-after")?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return now + Math.round(Number(retryAfter) * 1000);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return date;
  }
  const reset = headers.get("x-ratelimit-reset")?.trim();
  if (reset && /^\d+(\.\d+)?$/.test(reset)) {
    const value = Number(reset);
    if (value > 1e12) return Math.round(value); // epoch ms
    if (value > 1e9) return Math.round(value * 1000); // epoch seconds
    return now + Math.round(value * 1000); // seconds from now
  }
  for (const name of ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]) {
    const ms = durationMs(headers.get(name));
    if (ms !== null) return now + ms;
  }
  return null;
}

/** "6m0s", "1.5s", "250ms", "2h" as milliseconds; null when it is not such a duration. */
function durationMs(text: string | null): number | null {
  if (!text) return null;
  const parts = [...text.trim().matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (!parts.length || parts.map((p) => p[0]).join("") !== text.trim()) return null;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as keyof typeof unit], 0));
}
