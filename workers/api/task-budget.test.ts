import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { messages, runs, taskRuns, tasks } from "../../core/db/schema";
import { call } from "../../test/workerd/seed";
import { fileTask, recordStarts, seedTaskGuild, withDb } from "../../test/workerd/tasks";

/** A task's budget through the API (issue 33): filing with one, PATCH /api/tasks/:id, spend_usd. */

type Seeded = Awaited<ReturnType<typeof seedTaskGuild>>;

/** A finished run of the task whose assistant rows cost `costs` (USD), written as a run writes them. */
async function endedRun(agentId: string, taskId: string, costs: string[], detail: string) {
  await withDb(async (db) => {
    const [run] = await db.insert(runs).values({ agentId, kind: "task", status: "completed" }).returning();
    await db
      .insert(messages)
      .values(
        costs.map((cost, seq) => ({ runId: run!.id, seq, generation: 1, role: "assistant", payload: { role: "assistant", content: "ok" }, costUsd: cost })),
      );
    // A tool row carries no cost; it is not counted.
    await db
      .insert(messages)
      .values({ runId: run!.id, seq: costs.length, generation: 1, role: "tool", payload: { role: "tool", tool_call_id: "c", content: "x" } });
    await db.insert(taskRuns).values({ taskId, runId: run!.id, outcome: "limit_reached", endedAt: new Date(), report: { outcome: "limit_reached", detail } });
  });
}

const patch = (org: Seeded, id: string, body: unknown) => call("PATCH", `/api/tasks/${id}`, { token: org.token, body });
const read = async (org: Seeded, id: string) => (await call("GET", `/api/tasks/${id}`, { token: org.token })).json;

describe("a task's budget through the API", () => {
  let org: Seeded;
  let started: string[];
  beforeAll(async () => {
    org = await seedTaskGuild("Budgets", "acme/budget-app");
    // A recorder stands in for the task objects: the queue's starts are noted and refused, so tasks stay queued.
    started = await recordStarts(org.organisationId, async () => ({ ok: false, status: 503, code: "task.runs_unavailable", message: "not here" }));
  });

  it("ISSUE-33: a task is filed with a budget, or without one; it answers max_cost_usd and spend_usd, in the list too", async () => {
    const withBudget = await fileTask(org, { max_cost_usd: 2.5 });
    expect(withBudget.status, JSON.stringify(withBudget.json)).toBe(201);
    expect(withBudget.json).toMatchObject({ max_cost_usd: 2.5, spend_usd: 0 });
    expect((await fileTask(org, { max_cost_usd: 0.000001 })).json.max_cost_usd).toBe(0.000001);
    const without = await fileTask(org);
    expect(without.json).toMatchObject({ max_cost_usd: null, spend_usd: 0 });
    const listed = (await call("GET", `/api/guilds/${org.guildId}/tasks`, { token: org.token })).json.data;
    expect(listed.find((t: { id: string }) => t.id === withBudget.json.id)).toMatchObject({ max_cost_usd: 2.5, spend_usd: 0 });
  });

  it("ISSUE-33: a bad budget is a 422 naming max_cost_usd, on filing and on PATCH, and writes nothing", async () => {
    const task = (await fileTask(org, { max_cost_usd: 1 })).json;
    // What a refused request could write: a task filed, a budget changed (the queue's own moves may go on meanwhile).
    const budgets = () =>
      withDb((db) => db.select({ id: tasks.id, maxCostUsd: tasks.maxCostUsd }).from(tasks).where(eq(tasks.guildId, org.guildId)).orderBy(tasks.id));
    const before = await budgets();
    for (const bad of [-1, 0, 0.1234567, 100_000.5, "5", true, { usd: 1 }]) {
      const filed = await fileTask(org, { max_cost_usd: bad });
      expect(filed.status, JSON.stringify(bad)).toBe(422);
      expect(filed.json.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["max_cost_usd"]);
      const patched = await patch(org, task.id, { max_cost_usd: bad });
      expect(patched.status, JSON.stringify(bad)).toBe(422);
      expect(patched.json.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["max_cost_usd"]);
    }
    // JSON has no NaN: a body that writes it is not JSON, refused before any field.
    const nan = await call("PATCH", `/api/tasks/${task.id}`, { token: org.token, body: '{"max_cost_usd": NaN}' });
    expect(nan.status).toBe(400);
    const unknown = await patch(org, task.id, { max_cost_usd: 2, title: "Renamed" });
    expect(unknown.status).toBe(422);
    expect(unknown.json.error.details.fields.map((f: { field: string }) => f.field)).toContain("title");
    expect(await budgets()).toEqual(before);
  });

  it("ISSUE-33: PATCH sets and removes the budget; another organisation's task, or a malformed id, is 404 task.not_found and unchanged", async () => {
    const task = (await fileTask(org)).json;
    expect((await patch(org, task.id, { max_cost_usd: 3.25 })).json).toMatchObject({ id: task.id, max_cost_usd: 3.25, status: "queued" });
    expect((await patch(org, task.id, {})).json.max_cost_usd).toBe(3.25);
    expect((await patch(org, task.id, { max_cost_usd: null })).json.max_cost_usd).toBeNull();
    const other = await seedTaskGuild("Budgets elsewhere");
    const foreign = await patch(other, task.id, { max_cost_usd: 1 });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe("task.not_found");
    expect((await patch(org, "not-a-uuid", { max_cost_usd: 1 })).status).toBe(404);
    expect((await read(org, task.id)).max_cost_usd).toBeNull();
  });

  it("ISSUE-33: spend_usd is the sum of the task's runs' costs, read in one figure", async () => {
    const task = (await fileTask(org, { max_cost_usd: 1 })).json;
    await endedRun(org.agentId, task.id, ["0.001200", "0.000300"], "generation.max_steps");
    await endedRun(org.agentId, task.id, ["0.000005"], "task.budget");
    expect((await read(org, task.id)).spend_usd).toBe(0.001505);
  });

  it("ISSUE-33: raising the budget of a task its budget stopped over its spend queues it again and wakes the queue; one still at or under the spend stays", async () => {
    const task = (await fileTask(org, { max_cost_usd: 0.001 })).json;
    await endedRun(org.agentId, task.id, ["0.001200"], "task.budget");
    await withDb((db) => db.update(tasks).set({ status: "limit_reached" }).where(eq(tasks.id, task.id)));
    const queuedBefore = (await withDb((db) => db.select().from(tasks).where(eq(tasks.id, task.id))))[0]!.queuedAt;

    // Still not above the spend: it stays where it stopped.
    expect((await patch(org, task.id, { max_cost_usd: 0.0012 })).json).toMatchObject({ status: "limit_reached", max_cost_usd: 0.0012 });
    const startsBefore = started.filter((id) => id === task.id).length;
    const raised = await patch(org, task.id, { max_cost_usd: 0.002 });
    expect(raised.json).toMatchObject({ status: "queued", max_cost_usd: 0.002, spend_usd: 0.0012 });
    expect(Date.parse(raised.json.queued_at)).toBeGreaterThan(queuedBefore.getTime());
    // The queue was woken and tried to start it.
    for (let i = 0; started.filter((id) => id === task.id).length === startsBefore; i++) {
      if (i > 100) throw new Error("the queue was not woken");
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it("ISSUE-33: a message to a task its budget paused waits, undelivered, for the raise that queues it; to one with room it queues the task", async () => {
    const paused = (await fileTask(org, { max_cost_usd: 0.001 })).json;
    await endedRun(org.agentId, paused.id, ["0.001200"], "task.budget");
    await withDb((db) => db.update(tasks).set({ status: "limit_reached" }).where(eq(tasks.id, paused.id)));
    const sent = await call("POST", `/api/tasks/${paused.id}/messages`, { token: org.token, body: { content: "Go on once you can." } });
    expect(sent.status).toBe(202);
    expect(await read(org, paused.id)).toMatchObject({ status: "limit_reached" });
    const listed = (await call("GET", `/api/tasks/${paused.id}/messages`, { token: org.token })).json.data;
    expect(listed.map((m: { content: string; delivered_at: string | null }) => [m.content, m.delivered_at])).toEqual([["Go on once you can.", null]]);
    expect((await patch(org, paused.id, { max_cost_usd: 0.01 })).json.status).toBe("queued");

    // Stopped by its budget but with room again (raised in the database meanwhile): a message queues it as any other.
    const roomy = (await fileTask(org, { max_cost_usd: 0.001 })).json;
    await endedRun(org.agentId, roomy.id, ["0.001200"], "task.budget");
    await withDb((db) => db.update(tasks).set({ status: "limit_reached", maxCostUsd: "1" }).where(eq(tasks.id, roomy.id)));
    expect((await call("POST", `/api/tasks/${roomy.id}/messages`, { token: org.token, body: { content: "Go on." } })).status).toBe(202);
    expect((await read(org, roomy.id)).status).toBe("queued");
  });

  it("ISSUE-33: removing the budget queues a task its budget stopped; a task stopped by another limit stays", async () => {
    const budgeted = (await fileTask(org, { max_cost_usd: 0.001 })).json;
    await endedRun(org.agentId, budgeted.id, ["0.001200"], "task.budget");
    const limited = (await fileTask(org, { max_cost_usd: 0.001 })).json;
    await endedRun(org.agentId, limited.id, ["0.000100"], "generation.max_steps");
    await withDb((db) => db.update(tasks).set({ status: "limit_reached" }).where(eq(tasks.organisationId, org.organisationId)));
    expect((await patch(org, budgeted.id, { max_cost_usd: null })).json.status).toBe("queued");
    expect((await patch(org, limited.id, { max_cost_usd: 5 })).json.status).toBe("limit_reached");
  });
});
