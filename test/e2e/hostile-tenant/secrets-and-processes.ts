import pg from "pg";
import { describe, expect, it } from "vitest";
import { agentIdle, readRun, script, type Target, transcript } from "../agents";
import { agentWithSecret, type ScriptedCall } from "../container-stack";
import { boxesWithVariable, until } from "../sandbox-box";
import { type Boxes, type Caller, organisation } from "./tenant";

/** Names a tenant tries to give its secrets to reconfigure the box (core/validation/secret-name.ts). */
const RESERVED = ["GUEST_HOME", "GUEST_MAX_ARCHIVE_BYTES", "GUEST_TOKEN", "LD_PRELOAD", "NODE_OPTIONS", "BASH_ENV", "ENV", "PATH", "HOME", "PYTHONPATH"];

type Tenant = Awaited<ReturnType<typeof organisation>>;
type Agent = Awaited<ReturnType<typeof agentWithSecret>>;

/** Where the tenant's own calls go: the stack, with the tenant's token. */
const targetOf = (boxes: Boxes, tenant: Tenant): Target => ({ ...boxes.target, token: tenant.token });

/** One generation of the tenant's agent whose model makes these tool calls; each tool's answer in order. */
async function generate(boxes: Boxes, tenant: Tenant, agent: Agent, calls: ScriptedCall[]) {
  const target = targetOf(boxes, tenant);
  await script(agent.model, [{ tool_calls: calls }, { content: "done" }], target);
  const started = await tenant.call("POST", `/api/agents/${agent.agentId}/runs`, { message: "go" });
  expect(started.status, started.text).toBe(201);
  await agentIdle(agent.agentId, target, 180_000);
  const rows = await transcript(started.json.id, target);
  const results = rows.filter((r) => r.role === "tool").map((r) => String(r.payload.content).replace(/\nremaining_tool_calls: \d+$/, ""));
  return { runId: started.json.id as string, results, run: await readRun(started.json.id, target) };
}

/** Runs SQL on the stack's database (what an old deployment left behind). */
async function sql(boxes: Boxes, text: string, values: unknown[]) {
  const db = new pg.Client({ connectionString: boxes.stack.databaseUrl });
  await db.connect();
  try {
    return (await db.query(text, values)).rows;
  } finally {
    await db.end();
  }
}

/** A secret of the tenant granted to the agent, then renamed in the database as a row older than the rule would be named. */
async function oldSecret(boxes: Boxes, call: Caller, agent: Agent, name: string, value: string) {
  const placeholder = `OLD_${crypto.randomUUID().replace(/-/g, "").slice(0, 12).toUpperCase()}`;
  const created = await call("POST", "/api/secrets", { name: placeholder, value });
  expect(created.status, created.text).toBe(201);
  expect((await call("POST", `/api/secrets/${created.json.id}/grants`, { agent_id: agent.agentId })).status).toBe(201);
  // The value is sealed to its organisation and id, not its name: the renamed row still opens.
  await sql(boxes, "update secrets set name = $1 where id = $2", [name, created.json.id]);
}

/** Commands whose children leave the command's process group: setsid, a double fork, nohup in a session of its own. */
const ESCAPING_SHELL = "setsid sleep 1001 & ( setsid sleep 1002 & ) ; setsid nohup sleep 1003 >/dev/null 2>&1 & sleep 1004";
/** The same from a Python script: fork, setsid, fork again, and the grandchild becomes `sleep`. */
const ESCAPING_SCRIPT = [
  "import os, time",
  "if os.fork() == 0:",
  "    os.setsid()",
  "    if os.fork() == 0:",
  "        os.execvp('sleep', ['sleep', '1005'])",
  "    os._exit(0)",
  "os.wait()",
  "print('escaped', flush=True)",
  "time.sleep(1006)",
].join("\n");
/** What `ps` shows of any of them. */
const LEFTOVER = /sleep 100\d/;

/**
 * Reserved secret names and escaped processes (OP-SEC-3, OP-EXACT-5): a tenant cannot name a
 * secret after what the box, its shell, the loader or a runtime reads, and a secret stored
 * under such a name before the rule does not reach the box; a command or script whose
 * children leave its process group still leaves nothing running after its timeout.
 */
export function secretsAndProcesses(boxes: Boxes): void {
  describe("hostile tenant: reserved secret names and escaped processes", () => {
    it("OP-SEC-3: POST /api/secrets refuses every reserved name with a 422 naming name, and secret_store answers an ERROR storing nothing", async () => {
      const mallory = await organisation(boxes, "Mallory secrets");
      for (const name of RESERVED) {
        const res = await mallory.call("POST", "/api/secrets", { name, value: "/tmp/elsewhere" });
        expect(res.status, name).toBe(422);
        expect(res.json.error.code).toBe("validation.failed");
        expect(res.json.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["name"]);
      }
      const agent = await agentWithSecret(mallory.call, "Storer", {});
      const calls = RESERVED.map((name) => ({ name: "secret_store", arguments: { name, value: "/tmp/elsewhere" } }));
      const { results } = await generate(boxes, mallory, agent, calls);
      expect(results).toHaveLength(RESERVED.length);
      for (const [i, result] of results.entries()) expect(result, RESERVED[i]).toMatch(/^ERROR: invalid arguments: name: is reserved/);
      const listed = await mallory.call("GET", "/api/secrets?limit=200");
      expect(listed.json.data.map((s: { name: string }) => s.name)).toEqual([agent.secretName]);
    }, 240_000);

    it("OP-SEC-3 / SBX-009: old secrets named GUEST_HOME and NODE_OPTIONS do not change the guest: it answers, and saves and restores /home/agent", async () => {
      const mallory = await organisation(boxes, "Mallory guest");
      const agent = await agentWithSecret(mallory.call, "Mover", { coding: true });
      await oldSecret(boxes, mallory.call, agent, "GUEST_HOME", "/tmp/elsewhere");
      // Node refuses to start with an unknown option here: a guest that saw it would not answer.
      await oldSecret(boxes, mallory.call, agent, "NODE_OPTIONS", "--no-such-option");
      const first = await generate(boxes, mallory, agent, [
        // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansions, run in the box
        { name: "shell", arguments: { command: 'pwd; echo "home=${GUEST_HOME:-unset} node=${NODE_OPTIONS:-unset}"; echo kept > /home/agent/kept.txt' } },
      ]);
      expect(first.run.errors).toEqual([]);
      expect(first.results[0]).toContain("/home/agent\nhome=unset node=unset");
      const [box] = boxesWithVariable(agent.secretName);
      expect(box).toBeDefined();
      expect(boxesWithVariable("GUEST_HOME")).not.toContain(box);
      expect(boxesWithVariable("NODE_OPTIONS")).not.toContain(box);
      // A secret change destroys the idle box after saving its home (SEC-009); the next generation restores it.
      expect((await mallory.call("PATCH", `/api/secrets/${agent.secretId}`, { description: "changed" })).status).toBe(200);
      await until("the box to be destroyed after the secret change", () => boxesWithVariable(agent.secretName).length === 0, 30_000);
      const second = await generate(boxes, mallory, agent, [
        { name: "shell", arguments: { command: "cat /home/agent/kept.txt; ls /tmp/elsewhere 2>&1 | head -1" } },
      ]);
      expect(second.results[0]).toContain("kept\n");
      expect(second.results[0]).toContain("No such file or directory");
    }, 240_000);

    it("OP-EXACT-5 / SCRIPT-034: a shell command and a script whose children escape their process group time out, and no process of theirs is left in the box", async () => {
      const mallory = await organisation(boxes, "Mallory processes");
      const agent = await agentWithSecret(mallory.call, "Forker", { coding: true });
      const created = await mallory.call("POST", `/api/agents/${agent.agentId}/scripts`, {
        name: "escape",
        description: "forks away from its process group",
        source: ESCAPING_SCRIPT,
        parameters: null,
      });
      expect(created.status, created.text).toBe(201);
      const { results } = await generate(boxes, mallory, agent, [
        { name: "shell", arguments: { command: ESCAPING_SHELL, timeout_s: 2 } },
        { name: "script_run", arguments: { name: "escape" } },
        { name: "shell", arguments: { command: "ps -eo pid,sid,args" } },
      ]);
      expect(results[0]).toContain("timed out after 2 s");
      expect(results[1]).toContain("escaped");
      expect(results[1]).toMatch(/script timed out after \d+ s/);
      expect(results[2]).toContain("ps -eo pid,sid,args");
      expect(results[2]).not.toMatch(LEFTOVER);
    }, 240_000);
  });
}
