import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../bindings/env";
import { call, seedOrganisation } from "../test/workerd/seed";
import { app } from "./app";

const testEnv = env as unknown as Env & { TEST_LOW_RATE_LIMIT: RateLimit };

function expectSecurityHeaders(headers: Headers) {
  const csp = headers.get("content-security-policy") ?? "";
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain("unsafe-inline");
  expect(headers.get("x-content-type-options")).toBe("nosniff");
  expect(headers.get("referrer-policy")).toBe("no-referrer");
}

/** The real app with the tiny test budget in place of the production one. */
async function lowBudgetCall(path: string, token: string) {
  const ctx = createExecutionContext();
  const response = await app.fetch(
    new Request(`http://api.test${path}`, { headers: { authorization: `Bearer ${token}` } }),
    { ...testEnv, API_RATE_LIMIT: testEnv.TEST_LOW_RATE_LIMIT },
    ctx,
  );
  const json = (await response.json()) as any;
  await waitOnExecutionContext(ctx);
  return { status: response.status, headers: response.headers, json };
}

describe("HARDEN-5: security headers", () => {
  it("HARDEN-5: every API answer carries the CSP, nosniff and a referrer policy, errors included", async () => {
    const { token } = await seedOrganisation("Headers");
    for (const res of [
      await call("GET", "/api/health"),
      await call("GET", "/api/openapi.json"),
      await call("GET", "/api/guilds", { token }),
      await call("GET", "/api/guilds"),
      await call("GET", "/api/no-such-route", { token }),
    ])
      expectSecurityHeaders(res.headers);
  });

  it("HARDEN-5: the console's pages and assets carry them too", async () => {
    const page = await call("GET", "/guilds");
    expect(String(page.json)).toContain('<div id="app">');
    expectSecurityHeaders(page.headers);
  });
});

describe("HARDEN-5: per-organisation rate limit", () => {
  it("HARDEN-5: past the budget an organisation gets 429 rate_limited with Retry-After; another organisation is not slowed", async () => {
    const flooder = await seedOrganisation("Flooder");
    const neighbour = await seedOrganisation("Neighbour");
    const answers = await Promise.all(Array.from({ length: 8 }, () => lowBudgetCall("/api/guilds", flooder.token)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.json.error.code).toBe("rate_limited");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectSecurityHeaders(refused.headers);

    expect((await lowBudgetCall("/api/guilds", neighbour.token)).status).toBe(200);
  });

  it("HARDEN-5: the production budget is bound and high enough for ordinary use", async () => {
    expect(testEnv.API_RATE_LIMIT).toBeDefined();
    const { token } = await seedOrganisation("Busy");
    const answers = await Promise.all(Array.from({ length: 40 }, () => call("GET", "/api/guilds", { token })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
  });
});

describe("HARDEN-5: caller rate limit before the database", () => {
  /** The real app with the tiny test budget as the caller (pre-database) budget. */
  async function junkCall(token: string | null, address?: string) {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (address) headers["cf-connecting-ip"] = address;
    const ctx = createExecutionContext();
    const response = await app.fetch(
      new Request("http://api.test/api/guilds", { headers }),
      { ...testEnv, API_AUTH_RATE_LIMIT: testEnv.TEST_LOW_RATE_LIMIT },
      ctx,
    );
    const json = (await response.json()) as any;
    await waitOnExecutionContext(ctx);
    return { status: response.status, json, headers: response.headers };
  }

  it("HARDEN-5: a flood with one junk token is refused 429 before any token lookup; another caller is not slowed", async () => {
    const junk = `gld_junk${crypto.randomUUID()}`;
    const answers = await Promise.all(Array.from({ length: 8 }, () => junkCall(junk)));
    expect(answers.map((a) => a.status).sort()).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.json.error.code).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const { token } = await seedOrganisation("Caller neighbour");
    expect((await junkCall(token)).status).toBe(200);
  });

  it("HARDEN-5: fresh junk tokens (or none) from one address share that address's budget", async () => {
    const address = `198.51.100.${1 + Math.floor(Math.random() * 250)}`;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => junkCall(i % 2 ? `gld_junk${crypto.randomUUID()}` : null, address)));
    expect(answers.filter((a) => a.status === 429)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(5);
  });

  it("HARDEN-5: the production caller budget is bound", () => {
    expect(testEnv.API_AUTH_RATE_LIMIT).toBeDefined();
  });
});
