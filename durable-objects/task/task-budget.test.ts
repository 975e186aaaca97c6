import { runInDurableObject } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { taskObject } from "../../bindings/objects";
import { taskRuns } from "../../core/db/schema";
import { moveTask } from "../../core/db/task-rows";
import { modelRequests, script, toolCall } from "../../test/workerd/agents";
import { call } from "../../test/workerd/seed";
import { standInTaskBox } from "../../test/workerd/task-box";
import { seedTask, untilEnded } from "../../test/workerd/task-runs";
import { testEnv, withDb } from "../../test/workerd/tasks";
import type { TaskObject } from "./task-object";

/**
 * A task's budget over real runs (issue 33): the task object drives each run with the agent's
 * real loop against the scripted mock model (mock-model prices: input 1, output 2 USD per
 * million tokens), a stand-in box answering guilds-code (the Workers pool runs no containers).
 */

/** A coding agent's task, marked running as the queue does, with a budget. */
const budgetTask = (maxCostUsd: string | null) => seedTask({ maxCostUsd });

/** The task as the API answers it, once `done` holds (or the time runs out). */
async function taskUntil(token: string, id: string, done: (task: any) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = (await call("GET", `/api/tasks/${id}`, { token })).json;
    if (done(task)) return task;
    if (Date.now() > deadline) throw new Error(`the task never got there: ${JSON.stringify(task)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The task's object once its run's driver has let go (its ending written, the queue told):
 * a start asked for before then waits for it, and gives up after 10 s.
 */
async function letGo(taskId: string) {
  await runInDurableObject(taskObject(testEnv, taskId), async (object: TaskObject) => {
    await object.driver?.done;
  });
}

const reports = async (taskId: string) =>
  (await withDb((db) => db.select().from(taskRuns).where(eq(taskRuns.taskId, taskId)).orderBy(taskRuns.createdAt))).map((r) => ({
    outcome: r.outcome,
    report: r.report as { detail?: string; usage: { cost_usd: number; model_calls: number } },
  }));

describe("a task's budget", () => {
  it("ISSUE-33: a call that crosses the budget ends the run limit_reached (task.budget) with its work pushed and WIP kept, and no further call; raising the budget queues the task and its next run goes on", async () => {
    const { token, model, task } = await budgetTask("0.001000");
    // The first call costs 0.0012 USD (1000 in, 100 out), over the 0.001 budget; it asks for a tool, so the loop would call again.
    await script(model, [
      { tool_calls: [toolCall("note_list", {})], usage: { prompt_tokens: 1000, completion_tokens: 100 } },
      { tool_calls: [toolCall("complete_task", { summary: "Fixed the form." })], usage: { prompt_tokens: 100, completion_tokens: 10 } },
      { content: "Done.", usage: { prompt_tokens: 100, completion_tokens: 10 } },
    ]);
    const box = await standInTaskBox(task.id);
    expect((await taskObject(testEnv, task.id).start(task.id)).ok).toBe(true);
    const [first] = await untilEnded(task.id);
    expect(first).toMatchObject({ outcome: "limit_reached", report: expect.objectContaining({ outcome: "limit_reached", detail: "task.budget" }) });
    expect((first!.report as { usage: unknown }).usage).toMatchObject({ model_calls: 1, cost_usd: 0.0012 });
    expect(await modelRequests(model)).toHaveLength(1);
    // The turn's push, then the finalizing's push and WIP snapshot.
    expect(box.ran).toEqual(["task-prepare", "task-push", "task-finalize"]);
    expect(first!.workspace).toMatchObject({ pushed: true, ahead: 1, wip: { sha: "3333333", files: 1 } });
    const stopped = await taskUntil(token, task.id, (t) => t.status === "limit_reached");
    expect(stopped).toMatchObject({ max_cost_usd: 0.001, spend_usd: 0.0012 });
    expect(stopped.runs.latest.report.detail).toBe("task.budget");
    await letGo(task.id);

    // Raised over the spend: queued again at once, and the queue starts its next run, which goes on to complete.
    const raised = await call("PATCH", `/api/tasks/${task.id}`, { token, body: { max_cost_usd: 0.01 } });
    expect(raised.status, JSON.stringify(raised.json)).toBe(200);
    expect(raised.json).toMatchObject({ max_cost_usd: 0.01, spend_usd: 0.0012 });
    // Queued, and the woken queue may have started it before the answer was read.
    expect(["queued", "running"]).toContain(raised.json.status);
    const reviewed = await taskUntil(token, task.id, (t) => t.status === "in_review", 20_000);
    const requests = await modelRequests(model);
    expect(requests).toHaveLength(3);
    // The next run starts from where the first stopped: its prompt carries the earlier run's work.
    expect(JSON.stringify(requests[1]!.body.messages)).toContain("note_list");
    const all = await reports(task.id);
    expect(all.map((r) => r.outcome)).toEqual(["limit_reached", "completed"]);
    // spend_usd is the sum of the runs' costs.
    const sum = all.reduce((total, r) => total + Math.round(r.report.usage.cost_usd * 1e6), 0) / 1e6;
    expect(sum).toBe(0.0012 + 0.00012 + 0.00012);
    expect(reviewed.spend_usd).toBe(sum);
  }, 60_000);

  it("ISSUE-33: a run started when the task is already at its budget ends at once limit_reached, without a box or a model call", async () => {
    const { token, model, task } = await budgetTask("0.000001");
    await script(model, [{ tool_calls: [toolCall("note_list", {})], usage: { prompt_tokens: 1000, completion_tokens: 100 } }]);
    const box = await standInTaskBox(task.id);
    expect((await taskObject(testEnv, task.id).start(task.id)).ok).toBe(true);
    const [first] = await untilEnded(task.id);
    expect(first).toMatchObject({ outcome: "limit_reached", report: expect.objectContaining({ detail: "task.budget" }) });
    // Spent nothing yet, but a budget of one micro-dollar is reached by the first call: that run made it.
    expect(await modelRequests(model)).toHaveLength(1);
    expect(box.ran).toEqual(["task-prepare", "task-push", "task-finalize"]);

    // Now at its budget: a run started anyway (as the queue starts a due task) ends before its box or a call.
    await letGo(task.id);
    await withDb((db) => moveTask(db, task.id, ["limit_reached"], "running"));
    expect((await taskObject(testEnv, task.id).start(task.id)).ok).toBe(true);
    await taskUntil(token, task.id, (t) => t.runs.total === 2 && t.status === "limit_reached" && t.runs.active === null, 20_000);
    const all = await reports(task.id);
    expect(all.map((r) => [r.outcome, r.report.detail, r.report.usage.model_calls])).toEqual([
      ["limit_reached", "task.budget", 1],
      ["limit_reached", "task.budget", 0],
    ]);
    expect(await modelRequests(model)).toHaveLength(1);
    expect(box.ran).toEqual(["task-prepare", "task-push", "task-finalize"]);
  });

  it("ISSUE-33: a budget lowered under the spend of a running task stops its run at its next model call", async () => {
    const { token, model, task } = await budgetTask(null);
    // The mock holds its first reply until released: the budget is lowered while the call is in flight.
    await script(model, [
      { tool_calls: [toolCall("note_list", {})], usage: { prompt_tokens: 1000, completion_tokens: 100 }, delay_ms: 1500 },
      { content: "never asked for" },
    ]);
    await standInTaskBox(task.id);
    expect((await taskObject(testEnv, task.id).start(task.id)).ok).toBe(true);
    for (let i = 0; (await modelRequests(model)).length === 0; i++) {
      if (i > 150) throw new Error("the run never called the model");
      await new Promise((r) => setTimeout(r, 100));
    }
    const lowered = await call("PATCH", `/api/tasks/${task.id}`, { token, body: { max_cost_usd: 0.001 } });
    expect(lowered.json).toMatchObject({ status: "running", max_cost_usd: 0.001 });
    const [first] = await untilEnded(task.id);
    expect(first).toMatchObject({ outcome: "limit_reached", report: expect.objectContaining({ detail: "task.budget" }) });
    expect(await modelRequests(model)).toHaveLength(1);
  });
});
