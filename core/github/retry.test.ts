import { describe, expect, it } from "vitest";
import { GITHUB_RETRY, rateLimitWait, retryWait } from "./retry";

const headers = (values: Record<string, string>) => new Headers(values);
const now = 1_800_000_000_000;

describe("when a GitHub call is tried again (TASK-018, TASK-024)", () => {
  it("TASK-024: no answer or a 5xx backs off exponentially for a call whose repeat is harmless, and not at all for another", () => {
    expect([0, 1].map((attempt) => retryWait({ status: 502 }, attempt, { idempotent: true, now }))).toEqual([500, 1000]);
    expect(retryWait({ status: null }, 0, { idempotent: true, now })).toBe(500);
    expect(retryWait({ status: 503 }, 0, { idempotent: false, now })).toBeNull();
    expect(retryWait({ status: 502 }, GITHUB_RETRY.attempts - 1, { idempotent: true, now })).toBeNull();
  });

  it("TASK-024: a rate limit waits what GitHub asks (retry-after, or until x-ratelimit-reset) for any call, unless that is too long", () => {
    expect(retryWait({ status: 429, headers: headers({ "retry-after": "3" }) }, 0, { idempotent: false, now })).toBe(3000);
    const reset = String(Math.floor(now / 1000) + 5);
    expect(retryWait({ status: 403, headers: headers({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset }) }, 0, { idempotent: false, now })).toBe(
      5000,
    );
    expect(retryWait({ status: 403, headers: headers({ "retry-after": "60" }) }, 0, { idempotent: true, now })).toBeNull();
    expect(retryWait({ status: 429 }, 1, { idempotent: false, now })).toBe(1000);
  });

  it("TASK-024: a 403 that is no rate limit, and other refusals, stand", () => {
    expect(rateLimitWait({ status: 403, headers: headers({ "x-ratelimit-remaining": "12" }) }, now)).toBeNull();
    for (const status of [400, 401, 403, 404, 422]) expect(retryWait({ status, headers: headers({}) }, 0, { idempotent: true, now })).toBeNull();
  });
});
