import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/stack/ports";
import { script } from "./agents";
import { api } from "./http";
import { npmStart, terminate } from "./npm-start";

/**
 * A delivery across a restart of the whole stack: about the agent's object and its database,
 * so its sandboxes are off (GUILDS_CONTAINERS) and the file runs beside the box files.
 */
describe("npm start, restarted while an agent is busy", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "guilds-start-"));
  chmodSync(stateDir, 0o755);
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

  it("GROUP-009 / GROUP-014: a delivery queued on a busy agent survives a restart of the whole stack and arrives once", async () => {
    const port = await freePort();
    const env = { PORT: String(port), STACK_STATE_DIR: stateDir, DATABASE_URL: "", GUILDS_CONTAINERS: "off" };
    const base = `http://127.0.0.1:${port}`;
    const first = await npmStart(env);
    const stack = JSON.parse(readFileSync(join(stateDir, "stack.json"), "utf8"));
    const call = (method: string, path: string, body?: unknown) => api(method, path, { base, token: stack.token, body });
    const guild = (await call("POST", "/api/guilds", { name: "Restarted chat" })).json;
    const model = `restart-${Date.now()}`;
    const agent = (await call("POST", `/api/guilds/${guild.id}/agents`, { name: "Sleeper", model })).json;
    // A direct answer slow enough to be cut by the restart: the agent is busy when the post arrives.
    await script(model, [{ content: "never finished", delay_ms: 60_000 }], { mockUrl: stack.mock_model_url });
    const direct = (await call("POST", `/api/agents/${agent.id}/runs`, { message: "work" })).json;
    const posted = (await call("POST", `/api/guilds/${guild.id}/chat`, { content: "read me after the restart" })).json;
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await groupRuns(call, agent.id)).toEqual([]);
    await terminate(first, stateDir);

    const second = await npmStart(env);
    const again = JSON.parse(readFileSync(join(stateDir, "stack.json"), "utf8"));
    await script(model, [{ content: "read after the restart" }], { mockUrl: again.mock_model_url });
    // Nobody calls the agent: its own alarm (the lost lease's heartbeat, the queued delivery) brings it back.
    let runs: any[] = [];
    for (let i = 0; i < 120 && !(runs.length === 1 && runs[0].status === "completed"); i++) {
      await new Promise((r) => setTimeout(r, 500));
      runs = await groupRuns(call, agent.id);
    }
    expect(runs.map((r) => [r.status, r.metadata.group_chat_through_seq])).toEqual([["completed", posted.seq]]);
    const interrupted = (await call("GET", `/api/runs/${direct.id}`)).json;
    expect(interrupted.errors.map((e: { code: string }) => e.code)).toContain("generation.interrupted");
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await groupRuns(call, agent.id)).toHaveLength(1);
    await terminate(second, stateDir);
  }, 300_000);
});

/** The agent's group runs, with their metadata. */
async function groupRuns(call: (method: string, path: string) => Promise<{ json: any }>, agentId: string) {
  const list = (await call("GET", `/api/agents/${agentId}/runs`)).json.data.filter((r: { kind: string }) => r.kind === "group");
  return Promise.all(list.map(async (r: { id: string }) => (await call("GET", `/api/runs/${r.id}`)).json));
}
