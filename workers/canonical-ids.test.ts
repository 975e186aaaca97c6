import { createExecutionContext, listDurableObjectIds } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../bindings/env";
import { mintViewTicket, viewTicketKey } from "../core/sandbox/view-ticket";
import { newAgent } from "../test/workerd/agents";
import { call, seedGuild } from "../test/workerd/seed";
import { app } from "./app";

/**
 * One canonical form per id (docs/decisions/0015-tenant-boundaries.md): every path of the
 * API document answers an id written in capitals exactly as its lower-case form, and a
 * malformed id is 404 before the Worker touches its bindings (database, objects, budgets).
 */

type Operation = { method: string; path: string; body: boolean };

async function operations(): Promise<Operation[]> {
  const document = (await call("GET", "/api/openapi.json")).json as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
  return Object.entries(document.paths)
    .filter(([path]) => path.includes("{"))
    .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, body: Boolean(op.requestBody) })));
}

/** The path with each parameter filled: ids by `id`, the rest with harmless values. */
const fill = (path: string, id: (resource: string, param: string) => string) =>
  path.replace(/\{([a-z_]+)\}/g, (_, param: string, at: number) => {
    if (param === "seq") return "0";
    if (param === "name") return "missing_script";
    if (param === "repository") return "missing-repo";
    const resource = path.slice(0, at).split("/").filter(Boolean).at(-1)!;
    return id(resource, param);
  });

/** A request as a client sends it; event streams are read up to their headers only. */
async function answer(method: string, path: string, token: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await (exports as unknown as { default: Fetcher }).default.fetch(`http://api.test${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("text/event-stream")) {
    await response.body?.cancel();
    return { status: response.status, type, body: "(stream)" };
  }
  return { status: response.status, type, body: await response.text() };
}

describe("canonical ids at the edge (HARDEN-5)", () => {
  let token: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    const seeded = await seedGuild("Canonical ids");
    token = seeded.token;
    ids.guilds = seeded.guildId;
    const agent = await newAgent(token, seeded.guildId);
    ids.agents = agent.id;
    const run = await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} });
    expect(run.status, JSON.stringify(run.json)).toBe(201);
    ids.runs = run.json.id;
    const schedule = await call("POST", `/api/agents/${agent.id}/schedules`, {
      token,
      body: { description: "Weekly", instruction: "Look around", cron: "0 8 * * 1" },
    });
    expect(schedule.status, JSON.stringify(schedule.json)).toBe(201);
    ids.schedules = schedule.json.id;
    const secret = await call("POST", "/api/secrets", { token, body: { name: `CANON_${Date.now()}`, value: "v" } });
    expect(secret.status, JSON.stringify(secret.json)).toBe(201);
    ids.secrets = secret.json.id;
  });

  it("HARDEN-5: every path of the API document answers an id in capitals as its lower-case form", async () => {
    const swept: string[] = [];
    for (const op of await operations()) {
      // Reads go to real rows; writes are sent an invalid body (refused after the id is
      // resolved) or, without a body, to ids that exist nowhere, so the sweep changes nothing.
      const real = op.method === "GET" || op.body;
      const unknown = crypto.randomUUID();
      const pick = (resource: string, param: string) => (real && param === "id" && ids[resource]) || unknown;
      const lower = fill(op.path, pick);
      const upper = fill(op.path, (resource, param) => pick(resource, param).toUpperCase());
      const body = op.body ? { not_a_field: true } : undefined;
      const expected = await answer(op.method, lower, token, body);
      const got = await answer(op.method, upper, token, body);
      expect(got, `${op.method} ${upper}`).toEqual(expected);
      expect(expected.status, `${op.method} ${lower}`).toBeLessThan(500);
      swept.push(`${op.method} ${op.path}`);
    }
    expect(swept.length).toBeGreaterThan(40);
    // Two requests for every path of the document, one after another: 2 s idle, 20 s at a load of 8.
  }, 90_000);

  it("HARDEN-5: a path id that is not a uuid is 404 naming the resource before any binding (database, object, budget) is touched", async () => {
    const touched = new Set<string>();
    const untouchable = new Proxy({} as Env, {
      get(_, key) {
        touched.add(String(key));
        throw new Error(`binding ${String(key)} read`);
      },
    });
    for (const op of await operations()) {
      const path = fill(op.path, () => "not-a-uuid");
      const response = await app.fetch(
        new Request(`http://api.test${path}`, { method: op.method, headers: { authorization: `Bearer ${token}` } }),
        untouchable,
        createExecutionContext(),
      );
      expect(response.status, `${op.method} ${path}`).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code, path).toMatch(/^[a-z_]+\.not_found$/);
    }
    // An id in capitals beside a malformed one is no way around it.
    const mixed = await app.fetch(
      new Request(`http://api.test/api/secrets/${ids.secrets!.toUpperCase()}/grants/nope`, { method: "DELETE" }),
      untouchable,
      createExecutionContext(),
    );
    expect(mixed.status).toBe(404);
    expect(((await mixed.json()) as { error: { code: string } }).error.code).toBe("secret_grant.not_found");
    expect([...touched]).toEqual([]);
    // The real bindings were never needed to refuse it: the same request answers the same.
    expect((await call("GET", "/api/agents/not-a-uuid/runs", { token })).json.error.code).toBe("agent.not_found");
  });

  it("HARDEN-5: the view proxy under an agent id in capitals answers as the lower-case id and reaches no second agent object", async () => {
    const bindings = env as unknown as Env;
    const agent = await newAgent(token, ids.guilds!);
    const tokenId = (await call("GET", "/api/tokens", { token })).json.data[0].id as string;
    const ticket = await mintViewTicket(await viewTicketKey(bindings.SECRETS_KEK), { agentId: agent.id, view: "cli", tokenId, expiresAt: Date.now() + 60_000 });
    const open = async (id: string) => {
      const response = await (exports as unknown as { default: Fetcher }).default.fetch(`http://api.test/api/agents/${id}/cli/tty/${ticket}/`);
      return { status: response.status, body: await response.text() };
    };
    const lower = await open(agent.id);
    expect(await open(agent.id.toUpperCase())).toEqual(lower);
    const objects = (await listDurableObjectIds(bindings.AGENT)).map((id) => id.toString());
    expect(objects).toContain(bindings.AGENT.idFromName(agent.id).toString());
    expect(objects).not.toContain(bindings.AGENT.idFromName(agent.id.toUpperCase()).toString());
  });
});
