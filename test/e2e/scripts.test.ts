import { execFileSync } from "node:child_process";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { agentIdle, readRun, script, transcript } from "./agents";
import { agentWithSecret, containerStack, generate as generateOn, type ScriptedCall } from "./container-stack";
import { boxesWithVariable, until } from "./sandbox-box";

/**
 * Scripts on real containers: the catalog through the API and the script tools, each
 * run's snapshot, materialisation into /home/agent/scripts, and execution through the
 * image's launcher. A stack of its own, with a short script timeout (SCRIPT_TIMEOUT_S).
 */
const TIMEOUT_S = 3;

const boxes = containerStack({ SCRIPT_TIMEOUT_S: String(TIMEOUT_S) });
const { call } = boxes;

type Agent = Awaited<ReturnType<typeof agentWithSecret>>;

/** An agent (a lite box unless told otherwise) with one secret of its own, which tells its box apart. */
const scriptingAgent = (settings: Record<string, unknown> = {}) => agentWithSecret(call, "Scripter", settings);

/** One generation whose model makes these tool calls; each tool's answer in order. */
const generate = (agent: Agent, calls: ScriptedCall[], runId?: string) => generateOn(boxes, agent, calls, runId);

/** Writes a script through the API (an operator's write). */
async function putScript(agent: Agent, name: string, source: string, parameters: Record<string, unknown> | null = null) {
  const res = await call("POST", `/api/agents/${agent.agentId}/scripts`, { name, description: `${name} does its job`, source, parameters });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

/** The scripts of the run's stored snapshot, sources included (the API shows them without). */
async function snapshotRows(runId: string): Promise<Array<Record<string, unknown>>> {
  const db = new pg.Client({ connectionString: boxes.stack.databaseUrl });
  await db.connect();
  try {
    return (await db.query("select snapshot->'scripts' as scripts from runs where id = $1", [runId])).rows[0].scripts;
  } finally {
    await db.end();
  }
}

/** The tools of the model's latest request for this model, as the provider received them. */
async function requestTools(model: string): Promise<Array<{ type: string; function: { name: string } }>> {
  const { requests } = (await (await fetch(`${boxes.target.mockUrl}/__requests?model=${model}`)).json()) as { requests: Array<{ body: { tools?: [] } }> };
  return requests.at(-1)?.body.tools ?? [];
}

/** A command in the agent's box, as root (the test reads the box's files the agent sees). */
function inBox(agent: Agent, command: string): string {
  const [box] = boxesWithVariable(agent.secretName);
  if (!box) throw new Error("the agent has no box");
  return execFileSync("docker", ["exec", box, "sh", "-c", command], { encoding: "utf8" });
}

const ECHO = [
  "import json, os, sys",
  "args = json.load(sys.stdin)",
  "print('stdin', json.dumps(args, sort_keys=True))",
  "print('env', os.environ.get('GUILDS_SCRIPT_ARGS'))",
  "print('cwd', os.getcwd())",
].join("\n");

describe("scripts on real containers", () => {
  it("SCRIPT-017 / SCRIPT-018 / SCRIPT-046 / SCRIPT-047 / SCRIPT-048 / EXACT-013 / EXACT-020: scripting offers the five script tools; off, none, and a coding agent keeps shell", async () => {
    const on = await scriptingAgent();
    const off = await scriptingAgent({ scripting: false, coding: true });
    const names = async (agent: Agent) => {
      const run = await generate(agent, []);
      return (await readRun(run.runId, boxes.target)).snapshot.tools as string[];
    };
    const offered = await names(on);
    expect(offered.filter((n) => n.startsWith("script_"))).toEqual(["script_create", "script_list", "script_read", "script_run", "script_delete"]);
    expect(offered).not.toContain("shell");
    const coding = await names(off);
    expect(coding.filter((n) => n.startsWith("script_"))).toEqual([]);
    expect(coding).toContain("shell");
  }, 120_000);

  it("SCRIPT-001 / SCRIPT-011 / SCRIPT-033 / SCRIPT-034 / SCRIPT-035 / SCRIPT-037 / SCRIPT-038 / SCRIPT-039 / SEC-017: script_create then script_run runs the file with python in the home, arguments on stdin and in GUILDS_SCRIPT_ARGS, secrets in its environment", async () => {
    const agent = await scriptingAgent();
    const source = `${ECHO}\nprint('secret', os.environ.get('${"SECRET_NAME"}'))\nsys.exit(3)`.replace("SECRET_NAME", agent.secretName);
    const { results, runId } = await generate(agent, [
      { name: "script_create", arguments: { name: "echo_args", description: "Shows what a script receives", source } },
      { name: "script_run", arguments: { name: "echo_args", arguments: { city: "Oslo", n: 2 } } },
      { name: "script_run", arguments: { name: "echo_args" } },
    ]);
    expect(JSON.parse(results[0]!)).toMatchObject({ name: "echo_args", status: "created", version: 1 });
    expect(results[1]).toContain('stdin {"city": "Oslo", "n": 2}');
    expect(results[1]).toContain('env {"city":"Oslo","n":2}');
    expect(results[1]).toContain("cwd /home/agent");
    // The value reached the script (its output names it redacted), never the transcript.
    expect(results[1]).toContain(`secret [REDACTED:${agent.secretName}]`);
    expect(results[1]).toContain("[exit code 3 after");
    expect(results[2]).toContain("stdin {}");
    expect(JSON.stringify(await transcript(runId, boxes.target))).not.toContain(agent.value);
    expect(inBox(agent, "cat /home/agent/scripts/echo_args.py")).toBe(source);
  }, 120_000);

  it("SCRIPT-036 / ERR-016: an arguments string is parsed as JSON; anything but a JSON object is refused", async () => {
    const agent = await scriptingAgent();
    await putScript(agent, "echo_args", ECHO);
    const { results } = await generate(agent, [
      { name: "script_run", arguments: { name: "echo_args", arguments: '{"from":"text"}' } },
      { name: "script_run", arguments: { name: "echo_args", arguments: [1, 2] } },
      { name: "script_run", arguments: { name: "echo_args", arguments: "not json" } },
    ]);
    expect(results[0]).toContain('stdin {"from": "text"}');
    expect(results[1]).toBe("ERROR: arguments must be a JSON object");
    expect(results[2]).toBe("ERROR: arguments must be a JSON object");
  }, 120_000);

  it("SCRIPT-020 / SCRIPT-021 / SCRIPT-022 / SCRIPT-050 / EXACT-014 / EXACT-024: a run snapshots every row, its State lists them, and a script with parameters is a tool of its own from the next run", async () => {
    const agent = await scriptingAgent();
    const earlier = await generate(agent, []);
    const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };
    const created = await putScript(agent, "weather", `${ECHO}`, parameters);
    await putScript(agent, "plain", "print('plain')");
    const toolNames = async (runId: string) => (await readRun(runId, boxes.target)).snapshot.tools as string[];
    // The run created before has no such tool (SCRIPT-022: new runs only).
    expect(await toolNames(earlier.runId)).not.toContain("weather");
    const { runId, results } = await generate(agent, [
      { name: "weather", arguments: { city: "Lima" } },
      { name: "weather", arguments: { town: "Lima" } },
    ]);
    const hash = expect.stringMatching(/^[0-9a-f]{64}$/);
    expect((await readRun(runId, boxes.target)).snapshot.scripts).toEqual([
      { id: expect.any(String), name: "plain", description: "plain does its job", parameters: null, source_hash: hash },
      { id: created.id, name: "weather", description: "weather does its job", parameters, source_hash: created.source_hash },
    ]);
    // The stored snapshot holds whole rows, sources included (EXACT-024).
    expect((await snapshotRows(runId)).map((s) => [s.name, s.source])).toEqual([
      ["plain", "print('plain')"],
      ["weather", ECHO],
    ]);
    // The model is offered the script's own schema (EXACT-014); the script without parameters has no tool.
    const offered = await requestTools(agent.model);
    expect(offered.find((t) => t.function.name === "weather")).toEqual({
      type: "function",
      function: { name: "weather", description: "weather does its job", parameters },
    });
    expect(await toolNames(runId)).not.toContain("plain");
    // The opening State lists every script by name and description (SCRIPT-050).
    const system = String((await transcript(runId, boxes.target))[0]!.payload.content);
    expect(system).toContain("weather: weather does its job");
    expect(system).toContain("plain: plain does its job");
    expect(results[0]).toContain('stdin {"city": "Lima"}');
    expect(results[1]).toMatch(/^ERROR: invalid arguments: /);
  }, 120_000);

  it("SCRIPT-027 / SCRIPT-030 / SCRIPT-031 / SCRIPT-032 / SCRIPT-019: edits during a run leave its snapshotted version running; the next run runs the new one", async () => {
    const agent = await scriptingAgent();
    await putScript(agent, "version", "print('v1')");
    const first = await generate(agent, [{ name: "script_run", arguments: { name: "version" } }]);
    expect(first.results[0]).toContain("v1");
    // An operator's edit, then the agent's own replace, during the same run.
    await putScript(agent, "version", "print('v2')");
    const again = await generate(
      agent,
      [
        { name: "script_run", arguments: { name: "version" } },
        { name: "script_create", arguments: { name: "version", description: "Says its version", source: "print('v3')" } },
        { name: "script_read", arguments: { name: "version" } },
        { name: "script_run", arguments: { name: "version" } },
      ],
      first.runId,
    );
    expect(again.results[0]).toContain("v1");
    const replaced = JSON.parse(again.results[1]!);
    expect(replaced).toMatchObject({ name: "version", status: "replaced", version: 3 });
    expect(replaced.note).toMatch(/this run keeps executing the version it started with/i);
    // Listing reads the live catalog: a newer body than the run executes (SCRIPT-019).
    expect(JSON.parse(again.results[2]!).source).toBe("print('v3')");
    expect(again.results[3]).toContain("v1");
    const next = await generate(agent, [{ name: "script_run", arguments: { name: "version" } }]);
    expect(next.results[0]).toContain("v3");
  }, 180_000);

  it("SCRIPT-025 / SCRIPT-029: a script created during the run runs through script_run with its live source, and is no tool of its own until the next run", async () => {
    const agent = await scriptingAgent();
    const first = await generate(agent, []);
    await putScript(agent, "late", "import json, sys\nprint('late', json.load(sys.stdin))", { type: "object" });
    const { results } = await generate(
      agent,
      [
        { name: "script_run", arguments: { name: "late", arguments: { a: 1 } } },
        { name: "late", arguments: {} },
      ],
      first.runId,
    );
    expect(results[0]).toContain("late {'a': 1}");
    expect(results[1]).toBe("ERROR: unknown tool late");
  }, 120_000);

  it("SCRIPT-028 / OP-SCRIPT-2: script_delete during a run drops the name from its snapshot and its file at once; its own tool answers that it was deleted", async () => {
    const agent = await scriptingAgent();
    await putScript(agent, "doomed", "print('alive')", { type: "object" });
    const { runId, results } = await generate(agent, [
      { name: "doomed", arguments: {} },
      { name: "script_delete", arguments: { name: "doomed" } },
      { name: "script_run", arguments: { name: "doomed" } },
      { name: "doomed", arguments: {} },
    ]);
    expect(results[0]).toContain("alive");
    expect(results[1]).toBe("Deleted script doomed.");
    expect(results[2]).toBe("ERROR: script doomed was deleted during this run");
    expect(results[3]).toBe("ERROR: script doomed was deleted during this run");
    expect((await readRun(runId, boxes.target)).snapshot.scripts).toEqual([]);
    expect(inBox(agent, "ls -a /home/agent/scripts")).not.toContain("doomed.py");
    expect((await call("GET", `/api/agents/${agent.agentId}/scripts/doomed`)).status).toBe(404);
  }, 120_000);

  it("SCRIPT-023 / SCRIPT-024 / SCRIPT-026 / SBX-042 / SBX-043: each generation materialises the folder from the snapshot; managed leftovers go, other files stay", async () => {
    const agent = await scriptingAgent();
    await putScript(agent, "kept", "print('kept')");
    const first = await generate(agent, [{ name: "script_run", arguments: { name: "kept" } }]);
    inBox(
      agent,
      "echo 'print(1)' > /home/agent/scripts/stray.py; echo notes > /home/agent/scripts/notes.txt; echo 'print(\"tampered\")' > /home/agent/scripts/kept.py",
    );
    // The next generation materialises before its first script runs.
    await generate(agent, [{ name: "script_list", arguments: {} }], first.runId);
    const listing = inBox(agent, "ls -a /home/agent/scripts").split("\n").filter(Boolean).sort();
    expect(listing).toEqual([".", "..", "kept.py", "notes.txt"]);
    expect(inBox(agent, "cat /home/agent/scripts/kept.py")).toBe("print('kept')");
  }, 120_000);

  it("SCRIPT-034 / OP-SCRIPT-6: a script that runs past the limit is killed and the result says so", async () => {
    const agent = await scriptingAgent();
    await putScript(agent, "slow", "import time\nprint('started', flush=True)\ntime.sleep(60)");
    const started = Date.now();
    const { results } = await generate(agent, [{ name: "script_run", arguments: { name: "slow" } }]);
    expect(results[0]).toContain("started");
    expect(results[0]).toContain(`[script timed out after ${TIMEOUT_S} s`);
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);

  it("SCRIPT-013 / SCRIPT-014 / SCRIPT-015 / ERR-016: script_create of a new name past max_scripts is refused; a replace is not", async () => {
    const agent = await scriptingAgent({ max_scripts: 1 });
    const { results } = await generate(agent, [
      { name: "script_create", arguments: { name: "one", description: "First", source: "print(1)" } },
      { name: "script_create", arguments: { name: "two", description: "Second", source: "print(2)" } },
      { name: "script_create", arguments: { name: "one", description: "First, again", source: "print(11)" } },
    ]);
    expect(JSON.parse(results[0]!).status).toBe("created");
    expect(results[1]).toBe("ERROR: this agent is limited to 1 scripts");
    expect(JSON.parse(results[2]!).status).toBe("replaced");
  }, 120_000);

  it("SCRIPT-049 / SCRIPT-030: a script deleted through the API leaves the running box at once; one created while a generation runs reaches it", async () => {
    const agent = await scriptingAgent();
    await putScript(agent, "gone_soon", "print('x')");
    await putScript(agent, "sleeper", "import time\ntime.sleep(4)\nprint('woke')");
    await generate(agent, [{ name: "script_run", arguments: { name: "gone_soon" } }]);
    expect(inBox(agent, "ls /home/agent/scripts")).toContain("gone_soon.py");
    expect((await call("DELETE", `/api/agents/${agent.agentId}/scripts/gone_soon`)).status).toBe(204);
    await until("the deleted script to leave the box", () => !inBox(agent, "ls /home/agent/scripts").includes("gone_soon.py"), 10_000);
    // While the next generation sleeps in a script, an operator adds one: it reaches the box then.
    await script(agent.model, [{ tool_calls: [{ name: "script_run", arguments: { name: "sleeper" } }] }, { content: "done" }], boxes.target);
    await call("POST", `/api/agents/${agent.agentId}/runs`, { message: "sleep" });
    await until("the generation to start", async () => (await call("GET", `/api/agents/${agent.agentId}/status`)).json.generating === true);
    await putScript(agent, "fresh", "print('fresh')");
    await until("the new script to reach the box", () => inBox(agent, "ls /home/agent/scripts").includes("fresh.py"), 10_000);
    await agentIdle(agent.agentId, boxes.target, 60_000);
  }, 120_000);

  it("SCRIPT-047 / decision 0013: a run that offers scripts but runs none starts no box", async () => {
    const agent = await scriptingAgent();
    await putScript(agent, "unused", "print(1)");
    await generate(agent, [{ name: "script_list", arguments: {} }]);
    expect(boxesWithVariable(agent.secretName)).toEqual([]);
  }, 120_000);
});
