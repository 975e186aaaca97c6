import { beforeAll, describe, expect, it } from "vitest";
import { call, seedOrganisation } from "../test/workerd/seed";

/** Field-level cases: the body, and the fields the 422 must name. */
const agentCases: Array<[string, unknown, string[]]> = [
  ["empty name", { name: "" }, ["name"]],
  ["missing name", {}, ["name"]],
  ["name with a line break", { name: "a\nb" }, ["name"]],
  ["name too long", { name: "x".repeat(121) }, ["name"]],
  ["string limit", { name: "A", max_tool_calls: "50" }, ["max_tool_calls"]],
  ["zero limit", { name: "A", max_tool_calls: 0 }, ["max_tool_calls"]],
  ["negative tokens", { name: "A", max_input_tokens: -5 }, ["max_input_tokens"]],
  ["fractional steps", { name: "A", max_steps: 1.5 }, ["max_steps"]],
  ["huge keep", { name: "A", keep_tool_result_generations: 1e12 }, ["keep_tool_result_generations"]],
  ["bad thinking level", { name: "A", thinking_level: "extreme" }, ["thinking_level"]],
  ["flag as string", { name: "A", browser: "yes" }, ["browser"]],
  ["bad language", { name: "A", browser_language: "english please" }, ["browser_language"]],
  ["bad base url", { name: "A", model_base_url: "ftp://x" }, ["model_base_url"]],
  ["bad key name", { name: "A", model_api_key_secret: "lower case" }, ["model_api_key_secret"]],
  ["unknown projection policy", { name: "A", projection_policy_version: 2 }, ["projection_policy_version"]],
  ["zero scripts", { name: "A", max_scripts: 0 }, ["max_scripts"]],
  ["unknown field", { name: "A", colour: "blue" }, ["colour"]],
  ["several at once", { name: "", max_tool_calls: -1, memory: 3 }, ["name", "max_tool_calls", "memory"]],
];

const guildCases: Array<[string, unknown, string[]]> = [
  ["missing name", { description: "x" }, ["name"]],
  ["bad email", { name: "G", git_author_email: "not-an-email" }, ["git_author_email"]],
  ["switch as number", { name: "G", routines_enabled: 1 }, ["routines_enabled"]],
  ["unknown field", { name: "G", owner: "me" }, ["owner"]],
];

describe("validation: every bad field named, never a 5xx", () => {
  let token: string;
  let guildId: string;
  let agentId: string;

  beforeAll(async () => {
    ({ token } = await seedOrganisation());
    guildId = (await call("POST", "/api/guilds", { token, body: { name: "G" } })).json.id;
    agentId = (await call("POST", `/api/guilds/${guildId}/agents`, { token, body: { name: "A" } })).json.id;
  });

  it.each(agentCases)("POST agent with %s answers 422 naming the field", async (_, body, fields) => {
    const res = await call("POST", `/api/guilds/${guildId}/agents`, { token, body });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe("validation.failed");
    const named = res.json.error.details.fields.map((f: { field: string }) => f.field);
    for (const field of fields) expect(named).toContain(field);
    for (const field of fields) expect(res.json.error.message).toContain(field);
  });

  it.each(guildCases)("POST guild with %s answers 422 naming the field", async (_, body, fields) => {
    const res = await call("POST", "/api/guilds", { token, body });
    expect(res.status).toBe(422);
    const named = res.json.error.details.fields.map((f: { field: string }) => f.field);
    for (const field of fields) expect(named).toContain(field);
  });

  it("PATCH with no field, a bad field or an unknown field answers 422 and changes nothing", async () => {
    for (const body of [{}, { max_tool_calls: 0 }, { name: "B", secret_sauce: 1 }]) {
      const res = await call("PATCH", `/api/agents/${agentId}`, { token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const agent = await call("GET", `/api/agents/${agentId}`, { token });
    expect(agent.json).toMatchObject({ name: "A", max_tool_calls: 50 });
  });

  it("malformed bodies get a clear 4xx and nothing is written", async () => {
    const before = (await call("GET", "/api/guilds", { token })).json.data.length;
    const cases: Array<[string, { body?: unknown; headers?: Record<string, string> }, number, string]> = [
      ["not JSON", { body: "{name:", headers: { "content-type": "application/json" } }, 400, "request.invalid_json"],
      ["JSON array", { body: [] }, 422, "validation.failed"],
      ["JSON null", { body: "null" }, 422, "validation.failed"],
      ["JSON string", { body: '"guild"' }, 422, "validation.failed"],
      ["form content type", { body: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } }, 415, "request.unsupported_media_type"],
      ["no body", { headers: { "content-type": "application/json" } }, 400, "request.invalid_json"],
      ["invalid UTF-8", { body: new Uint8Array([0x7b, 0xff, 0x7d]), headers: { "content-type": "application/json" } }, 400, "request.invalid_json"],
    ];
    for (const [label, options, status, code] of cases) {
      const res = await call("POST", "/api/guilds", { token, ...options });
      expect(res.status, label).toBe(status);
      expect(res.json.error.code, label).toBe(code);
    }
    expect((await call("GET", "/api/guilds", { token })).json.data.length).toBe(before);
  });

  it("a body over the size limit answers 413", async () => {
    const res = await call("POST", "/api/guilds", { token, body: { name: "G", description: "x".repeat(2 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe("request.too_large");
  });

  it("ids that are not UUIDs, bad list queries and unknown routes answer 4xx", async () => {
    expect((await call("GET", "/api/agents/not-a-uuid", { token })).status).toBe(404);
    expect((await call("DELETE", "/api/guilds/'; drop table guilds; --", { token })).status).toBe(404);
    expect((await call("GET", "/api/agents?limit=0", { token })).status).toBe(422);
    expect((await call("GET", "/api/agents?limit=abc", { token })).status).toBe(422);
    expect((await call("GET", "/api/agents?cursor=%%%", { token })).status).toBe(422);
    expect((await call("GET", "/api/agents?guild_id=nope", { token })).status).toBe(422);
    const unknown = await call("GET", "/api/nothing-here", { token });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe("route.not_found");
  });
});
