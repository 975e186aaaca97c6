import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { readOpeningState } from "../../../core/db/agent-state";
import type { RunKind } from "../../../core/runs/rules";
import { newAgent, objectOf, rows, script, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";
import type { AgentObject } from "../agent-object";
import { writeOpening } from "./opening";
import { runTurn, type Turn } from "./turn";

/** Text of exactly `n` tokens, counted exactly (o200k: three digits a token) or by the bytes/3 estimate alike. */
const tokens = (n: number) => "777".repeat(n);

/**
 * Opens a run of `kind` on the agent's own object with `message` as its first row, and runs
 * one turn of it under the agent's lock, as the chat loop and the task driver do.
 */
async function oneTurn(agentId: string, kind: RunKind, message: string, before?: (abort: () => void) => void): Promise<{ turn: Turn; runId: string }> {
  return runInDurableObject(objectOf(agentId), async (object: AgentObject) => {
    const { context } = object.rooms;
    const runId = crypto.randomUUID();
    const claimed = await context.lock.claim(runId, 1);
    if (!claimed.ok) throw new Error("the agent is busy");
    try {
      const db = context.database.db();
      const now = new Date(context.now());
      const state = await readOpeningState(db, agentId, now);
      const opened = await writeOpening(db, state!, runId, now, { kind, run: { title: null, metadata: {} }, wake: { role: "user", content: message } });
      context.sessions.add(opened!.session);
      before?.(() => claimed.controller.abort());
      return { turn: await runTurn(context, opened!.session, claimed), runId };
    } finally {
      await context.lock.release(runId);
    }
  });
}

describe("one turn of a run", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("GEN-010 / GEN-012: a direct chat's reply is committed and the run goes on: the next message is the next step", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "hello there" }]);
    const { turn, runId } = await oneTurn(agent.id, "direct", "hi");
    expect(turn).toEqual({ next: "step", status: "active", errors: [] });
    expect((await rows(token, runId)).map((r) => [r.role, r.payload.content])).toEqual([
      ["system", expect.any(String)],
      ["user", "hi"],
      ["assistant", "hello there"],
    ]);
  });

  it("GEN-012: a schedule wake-up's generation ends its run", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "woke, nothing to do" }]);
    const { turn, runId } = await oneTurn(agent.id, "schedule", "wake up");
    expect(turn).toEqual({ next: "end", status: "completed", errors: [] });
    expect((await call("GET", `/api/runs/${runId}`, { token })).json.status).toBe("completed");
  });

  it("CHAIN-002 / CHAIN-003: a coding run past 70% of its input budget hands off with the reply's text, and opens no continuation itself", async () => {
    // The opening prompt with its tools is a few thousand tokens; the reply's 27,000 tokens take the next call past 70% and keep it under the cap.
    const agent = await newAgent(token, guildId, { coding: true, max_input_tokens: 40_000 });
    const notes = "## Goal\nship the parser\n## Remaining\ntests";
    await script(agent.model, [{ content: tokens(27_000), tool_calls: [toolCall("note_list", {})] }, { content: notes }]);
    const { turn, runId } = await oneTurn(agent.id, "direct", "build it");
    expect(turn.next, JSON.stringify(turn.errors)).toBe("handoff");
    expect(turn).toMatchObject({ text: notes });
    // The chat loop (or the task run) opens what comes next; the turn itself does not.
    expect((await call("GET", `/api/runs/${runId}`, { token })).json.continued_by_run_id).toBeUndefined();
  });

  it("GEN-009 / GEN-018: a run that uses its steps ends the turn at a limit named by its code", async () => {
    const agent = await newAgent(token, guildId, { max_steps: 1 });
    await script(agent.model, [{ content: "", tool_calls: [toolCall("note_write", { title: "a", body: "b" })] }]);
    const { turn } = await oneTurn(agent.id, "direct", "go");
    expect(turn).toMatchObject({ next: "limit", code: "generation.max_steps" });
  });

  it("PROV-001 / CANCEL-001: a provider failure and a cancel are errors that say which", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ status: 500 }]);
    const failed = await oneTurn(agent.id, "direct", "go");
    expect(failed.turn.next).toBe("error");
    expect(failed.turn.errors.map((e) => e.code)).toEqual([expect.stringMatching(/^provider\./)]);
    await script(agent.model, [{ content: "never read", delay_ms: 5_000 }]);
    const cancelled = await oneTurn(agent.id, "direct", "go", (abort) => abort());
    expect(cancelled.turn.next).toBe("error");
    expect(cancelled.turn.errors.map((e) => e.code)).toContain("generation.cancelled");
  });
});
