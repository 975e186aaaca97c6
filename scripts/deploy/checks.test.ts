import { describe, expect, it } from "vitest";
import { type Fetch, healthProblem, smokeProblem, versionOverride } from "./checks";
import { workersDevOrigin } from "./wrangler-platform";

const TAG = "0006_x";
const FAST = { waitMs: 50, pollMs: 1 };
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("checks between rollout steps", () => {
  it("send every request to the new version through the override header", async () => {
    const seen: (string | null)[] = [];
    const fetchFn: Fetch = async (_url, init) => {
      seen.push(new Headers(init?.headers).get("cloudflare-workers-version-overrides"));
      return json({ status: "ok", database: { reachable: true }, schema: { version: TAG, expected: TAG } });
    };
    expect(await healthProblem("https://w.dev", TAG, versionOverride("guilds-platform-production", "v2"), FAST, fetchFn)).toBeNull();
    expect(seen).toEqual(['guilds-platform-production="v2"']);
  });

  it("health fails at once on degraded, naming what the report says is missing", async () => {
    let calls = 0;
    const fetchFn: Fetch = async () => {
      calls++;
      return json({ status: "degraded", database: { reachable: true }, schema: { version: TAG, expected: TAG }, secrets: { missing: ["MODEL_API_KEY"] } });
    };
    const problem = await healthProblem("https://w.dev", TAG, {}, { waitMs: 60_000, pollMs: 1 }, fetchFn);
    expect(problem).toMatch(/status is degraded, expected ok .*MODEL_API_KEY/);
    expect(calls).toBe(1);
  });

  it("the smoke run passes with an assistant row and no error, and is archived", async () => {
    const paths: string[] = [];
    const fetchFn: Fetch = async (url, init) => {
      const path = `${init?.method ?? "GET"} ${new URL(url).pathname}`;
      paths.push(path);
      if (path === "POST /api/agents/a1/runs") return json({ id: "r1", generating: true, errors: [] }, 201);
      if (path === "GET /api/runs/r1") return json({ id: "r1", generating: paths.length < 3, errors: [] });
      if (path === "GET /api/runs/r1/messages") return json({ data: [{ role: "system" }, { role: "user" }, { role: "assistant" }] });
      return json({});
    };
    expect(await smokeProblem({ origin: "https://w.dev", token: "t", agentId: "a1", headers: {} }, { waitMs: 5_000, pollMs: 1 }, fetchFn)).toBeNull();
    expect(paths).toEqual(["POST /api/agents/a1/runs", "GET /api/runs/r1", "GET /api/runs/r1", "GET /api/runs/r1/messages", "POST /api/runs/r1/archive"]);
  });

  it("the smoke run fails on a refused request, a run error or no answer in time", async () => {
    const target = { origin: "https://w.dev", token: "t", agentId: "a1", headers: {} };
    expect(await smokeProblem(target, FAST, async () => json({ error: { code: "auth.invalid" } }, 401))).toBe(
      "POST /api/agents/:id/runs answered 401 auth.invalid",
    );
    const errors: Fetch = async (url) =>
      new URL(url).pathname.endsWith("/runs")
        ? json({ id: "r1" }, 201)
        : json({ id: "r1", generating: false, errors: [{ code: "model.error", message: "500" }] });
    expect(await smokeProblem(target, FAST, errors)).toBe("run r1 ended with model.error");
    const endless: Fetch = async (url) =>
      new URL(url).pathname.endsWith("/runs") ? json({ id: "r1" }, 201) : json({ id: "r1", generating: true, errors: [] });
    expect(await smokeProblem(target, FAST, endless)).toBe("the run did not finish within 0 s");
  });

  it("the Worker's workers.dev origin comes from a version's preview URL", () => {
    expect(workersDevOrigin("https://0f1e2d3c-guilds-platform-staging.acme.workers.dev", "guilds-platform-staging")).toBe(
      "https://guilds-platform-staging.acme.workers.dev",
    );
    expect(workersDevOrigin("https://0f1e2d3c-other.acme.workers.dev", "guilds-platform-staging")).toBeUndefined();
    expect(workersDevOrigin(null, "guilds-platform-staging")).toBeUndefined();
  });
});
