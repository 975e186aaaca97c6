import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { readOpeningState } from "../../../core/db/agent-state";
import { openDatabase } from "../../../core/db/client";
import { notes } from "../../../core/db/schema";
import { newAgent, objectOf, rows, script, settled } from "../../../test/workerd/agents";
import { seedGuild } from "../../../test/workerd/seed";
import type { AgentObject } from "../agent-object";

/**
 * Opens a schedule-like run through the lifecycle with an opening state read "before the
 * claim": its note titles say which state the system row was composed from. `between`
 * claims stand for the generations that took the lock after that read.
 */
async function openWithKnown(agentId: string, between: number): Promise<string> {
  const { db, close } = openDatabase(env);
  const state = await readOpeningState(db, agentId, new Date()).finally(close);
  const known = { ...state!, notes: [{ title: "read before the claim" }] };
  return runInDurableObject(objectOf(agentId), async (object: AgentObject) => {
    const { runs, context } = object.rooms;
    let runId = "";
    const opened = await runs.open(
      agentId,
      new Date(),
      async () => ({
        kind: "schedule",
        run: { title: "wake", metadata: {} },
        wake: { role: "user", content: "wake up" },
        opened: async (id) => void (runId = id),
      }),
      { known: { state: known, claims: context.lock.claims - between } },
    );
    expect(opened).toBe("started");
    return runId;
  });
}

describe("a run opened with the state its trigger read before the claim", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("RUN-010 / RUN-014: the system row's State is the one read beside the trigger's rows when no generation came between", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "awake" }]);
    const runId = await openWithKnown(agent.id, 0);
    await settled(token, runId);
    const [system] = await rows(token, runId);
    expect(system!.payload.content).toContain("read before the claim");
  });

  it("RUN-010 / RUN-014: a generation that took the lock after that read makes the opening read its State afresh", async () => {
    const agent = await newAgent(token, guildId);
    const { db, close } = openDatabase(env);
    await db.insert(notes).values({ agentId: agent.id, title: "written by that generation", body: "x" }).finally(close);
    await script(agent.model, [{ content: "awake" }]);
    const runId = await openWithKnown(agent.id, 1);
    await settled(token, runId);
    const [system] = await rows(token, runId);
    expect(system!.payload.content).toContain("written by that generation");
    expect(system!.payload.content).not.toContain("read before the claim");
  });
});
