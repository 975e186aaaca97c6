import { env } from "cloudflare:workers";
import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { artifacts, artifactVersions, mcpConnections, mcpTools, runs } from "../../core/db/schema";
import { scriptCatalog } from "../../core/db/scripts";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";
import { collectStream, type SseEvent } from "../../test/workerd/sse";

const write = (name: string, patch: Record<string, unknown> = {}) => ({
  name,
  description: `Does ${name}`,
  source: `print("${name}")\n`,
  ...patch,
});

/** An array nested `depth` levels deep: `[[[]]]` for 3. */
const nested = (depth: number): unknown => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`);

async function sha256(text: string) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function withDb<T>(work: (db: ReturnType<typeof openDatabase>["db"]) => Promise<T>): Promise<T> {
  const { db, close } = openDatabase(env);
  try {
    return await work(db);
  } finally {
    await close();
  }
}

const storedNames = (agentId: string) =>
  withDb(async (db) => (await db.select({ key: artifacts.key }).from(artifacts).where(eq(artifacts.agentId, agentId))).map((r) => r.key).sort());

describe("scripts over HTTP", () => {
  let token: string;
  let guildId: string;
  let organisationId: string;
  /** A second token of the same organisation, named as a person would name it. */
  let ciToken: string;
  let ciTokenId: string;
  beforeAll(async () => {
    ({ token, guildId, organisationId: organisationId } = await seedGuild("Scripts"));
    const created = await call("POST", "/api/tokens", { token, body: { name: "CI" } });
    ciToken = created.json.token;
    ciTokenId = created.json.id;
  }, 30_000);

  const post = (agentId: string, body: unknown, as = token) => call("POST", `/api/agents/${agentId}/scripts`, { token: as, body });

  it("SCRIPT-042 / SCRIPT-041 / SCRIPT-043 / SCRIPT-002 / SCRIPT-006: a write answers 201 with the script; list and read show its source and display_path", async () => {
    const agent = await newAgent(token, guildId);
    const parameters = { type: "object", properties: { symbol: { type: "string" } }, required: ["symbol"] };
    const created = await post(agent.id, write("fetch_prices", { description: "  Latest prices  ", parameters }), ciToken);
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(String),
      agent_id: agent.id,
      name: "fetch_prices",
      description: "Latest prices",
      source: 'print("fetch_prices")\n',
      source_hash: await sha256('print("fetch_prices")\n'),
      parameters,
      version: 1,
      author: { kind: "person", token_id: ciTokenId, name: "CI" },
      display_path: "/home/agent/scripts/fetch_prices.py",
      language: "python",
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await post(agent.id, write("add"))).status).toBe(201);

    const list = await call("GET", `/api/agents/${agent.id}/scripts`, { token });
    expect(list.status).toBe(200);
    expect(list.json.data.map((s: any) => [s.name, s.display_path, s.source])).toEqual([
      ["add", "/home/agent/scripts/add.py", 'print("add")\n'],
      ["fetch_prices", "/home/agent/scripts/fetch_prices.py", 'print("fetch_prices")\n'],
    ]);
    const one = await call("GET", `/api/agents/${agent.id}/scripts/fetch_prices`, { token });
    expect(one.status).toBe(200);
    expect(one.json).toEqual(created.json);

    const [row] = await withDb((db) => db.select().from(artifacts).where(eq(artifacts.id, created.json.id)));
    expect(row).toMatchObject({ agentId: agent.id, kind: "script", path: "scripts", key: "fetch_prices", sourceHash: created.json.source_hash });
  });

  it("SCRIPT-014 / SCRIPT-003 / OP-SCRIPT-4: writing an existing name replaces it, one row, version 2, and its history lists both versions with their authors", async () => {
    const agent = await newAgent(token, guildId);
    const first = await post(agent.id, write("report"));
    const second = await post(agent.id, write("report", { source: "print('v2')\n", description: "Second take" }), ciToken);
    expect(second.status, JSON.stringify(second.json)).toBe(201);
    expect(second.json).toMatchObject({
      id: first.json.id,
      version: 2,
      source: "print('v2')\n",
      description: "Second take",
      author: { kind: "person", name: "CI" },
    });
    expect(await storedNames(agent.id)).toEqual(["report"]);

    const history = await call("GET", `/api/agents/${agent.id}/scripts/report/history`, { token });
    expect(history.status).toBe(200);
    expect(history.json.data).toEqual([
      {
        version: 2,
        description: "Second take",
        source: "print('v2')\n",
        source_hash: await sha256("print('v2')\n"),
        parameters: null,
        author: { kind: "person", token_id: ciTokenId, name: "CI" },
        created_at: expect.any(String),
      },
      expect.objectContaining({ version: 1, source: 'print("report")\n', author: { kind: "person", token_id: expect.any(String), name: "operator" } }),
    ]);
    expect((await call("GET", `/api/agents/${agent.id}/scripts/missing/history`, { token })).json.error.code).toBe("script.not_found");
  });

  it("OP-SCRIPT-4: a run's write records the run and its step as the author, shown on the script and in its history", async () => {
    const agent = await newAgent(token, guildId);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json.id as string;
    const author = { kind: "run" as const, run_id: run, seq: 3 };
    const [written] = await withDb((db) =>
      scriptCatalog.write(db, agent.id, [{ name: "tally", description: "Counts", source: "print(3)\n", parameters: null }], author),
    );
    expect(written!.created).toBe(true);
    const shown = await call("GET", `/api/agents/${agent.id}/scripts/tally`, { token });
    expect(shown.json.author).toEqual(author);
    expect((await call("GET", `/api/agents/${agent.id}/scripts/tally/history`, { token })).json.data[0].author).toEqual(author);
  });

  it("SCRIPT-042 / SCRIPT-007 / SCRIPT-008 / SCRIPT-009 / SCRIPT-010 / SCRIPT-005 / SCRIPT-004: a refused write answers 422 naming the field, and writes nothing", async () => {
    const agent = await newAgent(token, guildId);
    const cases: Array<[unknown, string[]]> = [
      [write("Fetch"), ["name"]],
      [write("9lives"), ["name"]],
      [write("manifest"), ["name"]],
      [write("shell"), ["name"]],
      [write("note_write"), ["name"]],
      [write("ok", { description: "   " }), ["description"]],
      [write("ok", { description: "d".repeat(401) }), ["description"]],
      [write("ok", { source: "  \n\t" }), ["source"]],
      [write("ok", { parameters: { type: "array" } }), ["parameters.type"]],
      [write("ok", { parameters: { type: "object", properties: { n: { type: "integr" } } } }), ["parameters.properties.n.type"]],
      [write("ok", { parameters: [] }), ["parameters"]],
      [{ ...write("ok"), run_as: "root" }, ["run_as"]],
      [{ name: "ok", source: "x" }, ["description"]],
      [write("ok", { parameters: { type: "object", properties: { x: { enum: nested(40) } } } }), ["parameters"]],
    ];
    for (const [body, fields] of cases) {
      const res = await post(agent.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.error.code).toBe("validation.failed");
      expect(
        res.json.error.details.fields.map((f: any) => f.field),
        JSON.stringify(body),
      ).toEqual(fields);
      expect(res.json.error.message).toContain(fields[0]);
    }
    const reserved = await post(agent.id, write("manifest"));
    expect(reserved.json.error.details.fields[0].message).toBe('"manifest" is reserved');
    const tool = await post(agent.id, write("shell"));
    expect(tool.json.error.details.fields[0].message).toBe('"shell" is the name of a tool the agent has');
    expect(await storedNames(agent.id)).toEqual([]);
    // Not JSON, or not a JSON body, answers as every route does.
    expect((await call("POST", `/api/agents/${agent.id}/scripts`, { token, body: "{", headers: { "content-type": "application/json" } })).status).toBe(400);
    expect((await call("POST", `/api/agents/${agent.id}/scripts`, { token, body: "x", headers: { "content-type": "text/plain" } })).status).toBe(415);
  });

  it("SCRIPT-009: a script may not take the name of one of the organisation's MCP tools, alone or in a recipe; another organisation's tool does not count", async () => {
    const agent = await newAgent(token, guildId);
    const stranger = await seedGuild("Stranger tools");
    await withDb(async (db) => {
      for (const [owner, slug] of [
        [organisationId, "prices"],
        [stranger.organisationId, "weather"],
      ] as const) {
        const [connection] = await db
          .insert(mcpConnections)
          .values({
            organisationId: owner,
            slug,
            url: `http://127.0.0.1:9/${slug}/mcp`,
            transport: "streamable_http",
            authKind: "none",
            orgWide: false,
            status: "ready",
          })
          .returning();
        await db.insert(mcpTools).values({
          connectionId: connection!.id,
          organisationId: owner,
          name: `${slug}__latest`,
          remoteName: "latest",
          inputSchema: { type: "object" },
          enabled: true,
          position: 0,
        });
      }
    });
    const alone = await post(agent.id, write("prices__latest"));
    expect(alone.status).toBe(422);
    expect(alone.json.error.details.fields).toEqual([{ field: "name", message: '"prices__latest" is the name of a tool the agent has' }]);
    const recipe = await call("POST", `/api/agents/${agent.id}/scripts/recipe`, { token, body: { scripts: [write("fine"), write("prices__latest")] } });
    expect(recipe.status).toBe(422);
    expect(recipe.json.error.details.fields.map((f: any) => f.field)).toEqual(["scripts.1.name"]);
    expect(await storedNames(agent.id)).toEqual([]);
    expect((await post(agent.id, write("weather__latest"))).status).toBe(201);
  });

  it("HARDEN: a body nested thousands of levels deep is a 422, never a 500, here as on any JSON route", async () => {
    const agent = await newAgent(token, guildId);
    // Sent as text: serialising such a value in the test would exhaust the stack too.
    const deepEnum = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const deep = `{"name":"deep","description":"Deep","source":"print(1)","parameters":{"type":"object","properties":{"x":{"enum":${deepEnum}}}}}`;
    for (const [path, body] of [
      [`/api/agents/${agent.id}/scripts`, deep],
      [`/api/agents/${agent.id}/scripts/recipe`, `{"scripts":[${deep}]}`],
      ["/api/guilds", `{"name":"Deep","extra":${deepEnum}}`],
    ] as const) {
      const res = await call("POST", path, { token, body });
      expect(res.status, path).toBe(422);
      expect(res.json.error.details.fields).toEqual([{ field: "", message: "must not nest deeper than 64 levels" }]);
    }
    expect(await storedNames(agent.id)).toEqual([]);
  });

  it("SCRIPT-013 / ERR-016 / SCRIPT-014 / SCRIPT-015: past max_scripts a new name is refused with 'this agent is limited to N scripts', a replace is not; lowering the cap deletes nothing", async () => {
    const agent = await newAgent(token, guildId, { max_scripts: 2 });
    expect((await post(agent.id, write("one"))).status).toBe(201);
    expect((await post(agent.id, write("two"))).status).toBe(201);
    const refused = await post(agent.id, write("three"));
    expect(refused.status).toBe(422);
    expect(refused.json.error).toEqual({ code: "script.limit_reached", message: "this agent is limited to 2 scripts", details: { limit: 2 } });
    expect((await post(agent.id, write("two", { source: "print(2)\n" }))).json.version).toBe(2);

    const lowered = await call("PATCH", `/api/agents/${agent.id}`, { token, body: { max_scripts: 1 } });
    expect(lowered.status, JSON.stringify(lowered.json)).toBe(200);
    expect(await storedNames(agent.id)).toEqual(["one", "two"]);
    expect((await post(agent.id, write("three"))).json.error.message).toBe("this agent is limited to 1 scripts");
    expect((await post(agent.id, write("one", { source: "print(1)\n" }))).status).toBe(201);
    // Deleting makes room once the count is under the cap again.
    expect((await call("DELETE", `/api/agents/${agent.id}/scripts/one`, { token })).status).toBe(204);
    expect((await post(agent.id, write("three"))).status).toBe(422);
    expect((await call("DELETE", `/api/agents/${agent.id}/scripts/two`, { token })).status).toBe(204);
    expect((await post(agent.id, write("three"))).status).toBe(201);
  });

  it("SCRIPT-013: five simultaneous creates one short of the cap let exactly one in; the rest are 422 script.limit_reached", async () => {
    const agent = await newAgent(token, guildId, { max_scripts: 3 });
    for (const name of ["a", "b"]) expect((await post(agent.id, write(name))).status).toBe(201);
    const answers = await Promise.all(["c1", "c2", "c3", "c4", "c5"].map((name) => post(agent.id, write(name))));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 422, 422, 422, 422]);
    for (const a of answers.filter((x) => x.status === 422)) expect(a.json.error.message).toBe("this agent is limited to 3 scripts");
    expect(await storedNames(agent.id)).toHaveLength(3);
  }, 30_000);

  it("SCRIPT-003: simultaneous writes of one new name make one row and a version each, never a 500", async () => {
    const agent = await newAgent(token, guildId);
    const answers = await Promise.all([1, 2, 3, 4].map((i) => post(agent.id, write("same", { source: `print(${i})\n` }))));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    expect(answers.map((a) => a.json.version).sort()).toEqual([1, 2, 3, 4]);
    expect(await storedNames(agent.id)).toEqual(["same"]);
    const history = await call("GET", `/api/agents/${agent.id}/scripts/same/history`, { token });
    expect(history.json.data.map((v: any) => v.version)).toEqual([4, 3, 2, 1]);
  }, 30_000);

  it("SCRIPT-016 / OP-SCRIPT-5: a recipe is written whole, or refused whole when it would pass the cap or one script is bad", async () => {
    const agent = await newAgent(token, guildId, { max_scripts: 3 });
    expect((await post(agent.id, write("keep"))).status).toBe(201);
    const recipe = (scripts: unknown[]) => call("POST", `/api/agents/${agent.id}/scripts/recipe`, { token, body: { scripts } });

    const over = await recipe([write("keep", { source: "print('new')\n" }), write("r1"), write("r2"), write("r3")]);
    expect(over.status).toBe(422);
    expect(over.json.error.code).toBe("script.limit_reached");
    expect(over.json.error.message).toBe("this agent is limited to 3 scripts");

    const bad = await recipe([write("r1"), write("r2", { description: "" }), write("r1")]);
    expect(bad.status).toBe(422);
    expect(bad.json.error.details.fields.map((f: any) => f.field)).toEqual(["scripts.1.description", "scripts.2.name"]);
    expect((await recipe([])).status).toBe(422);
    expect(await storedNames(agent.id)).toEqual(["keep"]);
    expect((await call("GET", `/api/agents/${agent.id}/scripts/keep`, { token })).json.version).toBe(1);

    // Two new names and a replace fit a cap of 3.
    const applied = await recipe([write("r2"), write("keep", { source: "print('new')\n" }), write("r1")]);
    expect(applied.status, JSON.stringify(applied.json)).toBe(201);
    expect(applied.json.data.map((s: any) => [s.name, s.version])).toEqual([
      ["r2", 1],
      ["keep", 2],
      ["r1", 1],
    ]);
    expect(await storedNames(agent.id)).toEqual(["keep", "r1", "r2"]);
  });

  it("SCRIPT-043 / SCRIPT-044 / SCRIPT-045 / OP-SCRIPT-3: read and delete answer 404 when missing; delete is 204; delete-all empties the catalog", async () => {
    const agent = await newAgent(token, guildId);
    for (const name of ["a", "b"]) await post(agent.id, write(name));
    for (const path of ["missing", "Not-A-Name", "a.py"]) {
      const res = await call("GET", `/api/agents/${agent.id}/scripts/${path}`, { token });
      expect(res.status, path).toBe(404);
      expect(res.json.error.code).toBe("script.not_found");
    }
    expect((await call("DELETE", `/api/agents/${agent.id}/scripts/a`, { token })).status).toBe(204);
    expect((await call("GET", `/api/agents/${agent.id}/scripts/a`, { token })).status).toBe(404);
    const again = await call("DELETE", `/api/agents/${agent.id}/scripts/a`, { token });
    expect(again.status).toBe(404);
    expect(again.json.error.code).toBe("script.not_found");
    expect(await storedNames(agent.id)).toEqual(["b"]);

    expect((await call("DELETE", `/api/agents/${agent.id}/scripts`, { token })).status).toBe(204);
    expect((await call("GET", `/api/agents/${agent.id}/scripts`, { token })).json.data).toEqual([]);
    expect((await call("DELETE", `/api/agents/${agent.id}/scripts`, { token })).status).toBe(204);
    const versions = await withDb((db) =>
      db
        .select({ id: artifactVersions.id })
        .from(artifactVersions)
        .innerJoin(artifacts, eq(artifacts.id, artifactVersions.artifactId))
        .where(eq(artifacts.agentId, agent.id)),
    );
    expect(versions).toEqual([]);
  });

  it("SCRIPT-041: another organisation's agent is not found, whatever the route", async () => {
    const agent = await newAgent(token, guildId);
    await post(agent.id, write("mine"));
    const stranger = await seedGuild("Stranger");
    const paths: Array<[string, string, unknown?]> = [
      ["GET", `/api/agents/${agent.id}/scripts`],
      ["POST", `/api/agents/${agent.id}/scripts`, write("theirs")],
      ["POST", `/api/agents/${agent.id}/scripts/recipe`, { scripts: [write("theirs")] }],
      ["GET", `/api/agents/${agent.id}/scripts/mine`],
      ["GET", `/api/agents/${agent.id}/scripts/mine/history`],
      ["DELETE", `/api/agents/${agent.id}/scripts/mine`],
      ["DELETE", `/api/agents/${agent.id}/scripts`],
      ["GET", "/api/agents/not-a-uuid/scripts"],
    ];
    for (const [method, path, body] of paths) {
      const res = await call(method, path, { token: stranger.token, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.error.code).toBe("agent.not_found");
    }
    expect(await storedNames(agent.id)).toEqual(["mine"]);
  });

  it("SCRIPT-028 / EXACT-025: deleting a script drops it from the snapshots of the agent's active runs only; delete-all empties them", async () => {
    const agent = await newAgent(token, guildId);
    for (const name of ["a", "b"]) await post(agent.id, write(name));
    const open = async () => (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json.id as string;
    const active = await open();
    const completed = await open();
    const entry = (name: string) => ({ id: crypto.randomUUID(), name, description: `Does ${name}`, parameters: null, source: "x", source_hash: "h" });
    await withDb(async (db) => {
      await db
        .update(runs)
        .set({ snapshot: sql`jsonb_set(${runs.snapshot}, '{scripts}', ${JSON.stringify([entry("a"), entry("b")])}::jsonb)` })
        .where(eq(runs.agentId, agent.id));
      await db.update(runs).set({ status: "completed" }).where(eq(runs.id, completed));
    });
    const snapshotOf = (id: string) =>
      withDb(async (db) => (await db.select({ snapshot: runs.snapshot }).from(runs).where(eq(runs.id, id)))[0]!.snapshot as any);
    const before = await snapshotOf(active);

    expect((await call("DELETE", `/api/agents/${agent.id}/scripts/a`, { token })).status).toBe(204);
    const after = await snapshotOf(active);
    expect(after.scripts.map((s: any) => s.name)).toEqual(["b"]);
    // Nothing else of the snapshot moved.
    expect({ ...after, scripts: undefined }).toEqual({ ...before, scripts: undefined });
    expect((await snapshotOf(completed)).scripts.map((s: any) => s.name)).toEqual(["a", "b"]);

    expect((await call("DELETE", `/api/agents/${agent.id}/scripts`, { token })).status).toBe(204);
    expect((await snapshotOf(active)).scripts).toEqual([]);
    expect((await snapshotOf(completed)).scripts.map((s: any) => s.name)).toEqual(["a", "b"]);
    const left = await withDb((db) =>
      db
        .select()
        .from(runs)
        .where(and(eq(runs.agentId, agent.id), eq(runs.status, "active"))),
    );
    expect(left).toHaveLength(1);
  });

  it("SCRIPT-040 / SSE-005: each write publishes agent.scripts.changed on the guild's stream with agent_id, action and name", async () => {
    const agent = await newAgent(token, guildId);
    let writes: Promise<unknown> | undefined;
    const changes = (events: SseEvent[]) => events.filter((e) => e.event === "agent.scripts.changed");
    const events = await collectStream(token, `/api/guilds/${guildId}/events`, (seen) => {
      // Write only once the stream is open (its status event), so every event reaches it.
      if (!writes && seen.some((e) => e.event === "status")) {
        writes = (async () => {
          await post(agent.id, write("fetch"));
          await post(agent.id, write("fetch", { source: "print(2)\n" }));
          await call("POST", `/api/agents/${agent.id}/scripts/recipe`, { token, body: { scripts: [write("r1")] } });
          await post(agent.id, write("manifest")); // refused: no event
          await call("DELETE", `/api/agents/${agent.id}/scripts/fetch`, { token });
          await call("DELETE", `/api/agents/${agent.id}/scripts/fetch`, { token }); // missing: no event
          await call("DELETE", `/api/agents/${agent.id}/scripts`, { token });
        })();
      }
      return changes(seen).length >= 5;
    });
    await writes;
    expect(changes(events).map((e) => e.data)).toEqual([
      { agent_id: agent.id, action: "create", name: "fetch" },
      { agent_id: agent.id, action: "create", name: "fetch" },
      { agent_id: agent.id, action: "create", name: "r1" },
      { agent_id: agent.id, action: "delete", name: "fetch" },
      { agent_id: agent.id, action: "clear" },
    ]);
    // Another guild's stream hears nothing of it.
    const other = await call("POST", "/api/guilds", { token, body: { name: "Elsewhere" } });
    let later: Promise<unknown> | undefined;
    const quiet = await collectStream(
      token,
      `/api/guilds/${other.json.id}/events`,
      (seen) => {
        if (!later && seen.some((e) => e.event === "status")) later = post(agent.id, write("later"));
        return false;
      },
      { timeoutMs: 1_500 },
    );
    expect(((await later) as { status: number }).status).toBe(201);
    expect(changes(quiet)).toEqual([]);
  }, 30_000);
});
