import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import journal from "../../migrations/meta/_journal.json";
import { schemaProblem } from "../../scripts/deploy/schema-check";
import { call } from "../../test/workerd/seed";
import { app } from "../app";
import { errorReason, HEALTH_CHECK_TTL_MS, sharedCheck } from "./health";

/** `/api/health` of the real app with some bindings replaced. */
async function healthWith(bindings: Partial<Env>) {
  const ctx = createExecutionContext();
  const response = await app.fetch(new Request("http://api.test/api/health"), { ...(env as unknown as Env), ...bindings }, ctx);
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  return { status: response.status, text, json: JSON.parse(text) };
}

describe("HARDEN-5: /api/health", () => {
  it("HARDEN-5: answers a burst of anonymous requests from one database check, and checks again after a few seconds", async () => {
    /** Waits until an answer checked at `checkedAt` is no longer served from the isolate's cache. */
    const untilStale = (checkedAt: string) =>
      new Promise((r) => setTimeout(r, Math.max(0, HEALTH_CHECK_TTL_MS - (Date.now() - new Date(checkedAt).getTime())) + 200));
    // What answered before this test (an earlier file in this workerd, the warm-up) goes stale
    // first, so the next request checks anew and the burst comes well within that check's TTL.
    const before = await call("GET", "/api/health");
    await untilStale(before.json.checked_at);
    const first = await call("GET", "/api/health");
    expect(first.status).toBe(200);
    expect(first.json.database.reachable).toBe(true);
    expect(new Date(first.json.checked_at).getTime()).toBeGreaterThan(new Date(before.json.checked_at).getTime());
    const burst = await Promise.all(Array.from({ length: 20 }, () => call("GET", "/api/health")));
    expect(burst.every((r) => r.status === 200)).toBe(true);
    expect(new Set(burst.map((r) => r.json.checked_at))).toEqual(new Set([first.json.checked_at]));
    await untilStale(first.json.checked_at);
    const later = await call("GET", "/api/health");
    expect(new Date(later.json.checked_at).getTime()).toBeGreaterThan(new Date(first.json.checked_at).getTime());
  }, 30_000);

  it("ENVIRONMENTS: reports the newest applied migration's tag, which the deploy check accepts", async () => {
    const newest = journal.entries.at(-1)!.tag;
    const health = await call("GET", "/api/health");
    expect(health.json.schema).toMatchObject({ version: newest, expected: newest, up_to_date: true });
    expect(schemaProblem(health.json, newest)).toBeNull();
    expect(schemaProblem(health.json, "9999_not_yet_applied")).toMatch(/expected 9999_not_yet_applied/);
  });

  it("HARDEN-5: a check that outlived its timeout neither clears its successor's in-flight mark nor replaces its newer answer", async () => {
    let now = 0;
    const cached = sharedCheck(() => now);
    const pending: Array<(at: number) => void> = [];
    let runs = 0;
    const answer = (at: number) => ({ at, status: 200 as const, body: { checked_at: String(at) } as any });
    const run = () => {
      runs++;
      // Past the scenario, a check answers at once (so a wrong extra check shows as a wrong answer, not a hang).
      return now >= 31_100 ? Promise.resolve(answer(-1)) : new Promise<any>((resolve) => pending.push((at) => resolve(answer(at))));
    };
    const first = cached(run);
    now = 11_000; // the first check hangs past its timeout: a second one starts
    const second = cached(run);
    expect(runs).toBe(2);
    pending[0]!(0);
    await first;
    now = 11_100; // the second check is still in flight: no third one
    const during = cached(run);
    expect(runs).toBe(2);
    expect((await during).at).toBe(0);
    pending[1]!(11_000);
    expect((await second).at).toBe(11_000);

    now = 20_000;
    const third = cached(run);
    now = 31_000;
    const fourth = cached(run);
    expect(runs).toBe(4);
    pending[3]!(31_000);
    await fourth;
    pending[2]!(20_000); // the older check answers last: its answer must not replace the newer one
    await third;
    now = 31_100;
    expect((await cached(run)).at).toBe(31_000);
  });

  it("HARDEN-5: with every required secret set and readable it is ok, with no problem", async () => {
    const health = await call("GET", "/api/health");
    expect(health.json).toMatchObject({ status: "ok", secrets: { missing: [], unreadable: [] }, problems: [] });
  });

  it("HARDEN-5: a missing SECRETS_KEK or MODEL_API_KEY (for a public provider) is degraded, still 200, naming each", async () => {
    const health = await healthWith({ SECRETS_KEK: undefined, MODEL_API_KEY: undefined, MODEL_BASE_URL: "https://api.openai.com/v1" });
    expect(health.status).toBe(200);
    expect(health.json.status).toBe("degraded");
    expect(health.json.database.reachable).toBe(true);
    expect(health.json.secrets).toEqual({ missing: ["SECRETS_KEK", "MODEL_API_KEY"], unreadable: [] });
    expect(health.json.problems).toEqual(["SECRETS_KEK is not set", "MODEL_API_KEY is not set"]);
  });

  it("HARDEN-5: a SECRETS_KEK that does not parse is degraded as unreadable, without its value", async () => {
    const health = await healthWith({ SECRETS_KEK: "v1:not-a-key-s3cr3t" });
    expect(health.status).toBe(200);
    expect(health.json.status).toBe("degraded");
    expect(health.json.secrets).toEqual({ missing: [], unreadable: ["SECRETS_KEK"] });
    expect(health.text).not.toContain("s3cr3t");
  });

  it("HARDEN-5: an error reported to anonymous callers carries no connection string or WebSocket address", () => {
    const reason = errorReason(new Error("connect to wss://127.0.0.1:5432/s3cr3t-path/v1?address=db:5432 and postgres://u:pw@h/db failed"));
    expect(reason).not.toContain("s3cr3t");
    expect(reason).not.toContain("pw@");
    expect(reason).toContain("failed");
  });
});
