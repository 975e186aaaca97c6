import { describe, expect, it } from "vitest";
import journal from "../../migrations/meta/_journal.json";
import { schemaProblem } from "../../scripts/deploy/schema-check";
import { call } from "../test/seed";
import { HEALTH_CHECK_TTL_MS } from "./health";

describe("HARDEN-5: /api/health", () => {
  it("HARDEN-5: answers a burst of anonymous requests from one database check, and checks again after a few seconds", async () => {
    const first = await call("GET", "/api/health");
    expect(first.status).toBe(200);
    expect(first.json.database.reachable).toBe(true);
    const burst = await Promise.all(Array.from({ length: 20 }, () => call("GET", "/api/health")));
    expect(burst.every((r) => r.status === 200)).toBe(true);
    expect(new Set(burst.map((r) => r.json.checked_at))).toEqual(new Set([first.json.checked_at]));
    const since = Date.now() - new Date(first.json.checked_at).getTime();
    await new Promise((r) => setTimeout(r, Math.max(0, HEALTH_CHECK_TTL_MS - since) + 200));
    const later = await call("GET", "/api/health");
    expect(new Date(later.json.checked_at).getTime()).toBeGreaterThan(new Date(first.json.checked_at).getTime());
  }, 20_000);

  it("ENVIRONMENTS: reports the newest applied migration's tag, which the deploy check accepts", async () => {
    const newest = journal.entries.at(-1)!.tag;
    const health = await call("GET", "/api/health");
    expect(health.json.schema).toMatchObject({ version: newest, expected: newest, up_to_date: true });
    expect(schemaProblem(health.json, newest)).toBeNull();
    expect(schemaProblem(health.json, "9999_not_yet_applied")).toMatch(/expected 9999_not_yet_applied/);
  });
});
