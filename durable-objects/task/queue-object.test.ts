import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { runs, taskRuns, tasks } from "../../core/db/schema";
import { activeRunCount } from "../../core/db/task-queue";
import { createTask, moveTask, type TaskRow } from "../../core/db/task-rows";
import { volumeObjectKey } from "../../core/tasks/key";
import { REFUSED_START_DELAY_MS, VOLUME_SWEEP_MS } from "../../core/tasks/transitions";
import { call } from "../../test/workerd/seed";
import { fileTask, queueOf, recordStarts, seedTaskGuild, setQueueClock, withDb } from "../../test/workerd/tasks";
import type { TaskQueueObject } from "./queue-object";

/** The organisation's queue (TASK-006..008, TASK-037), with a recording starter in place of the task objects. */

const testEnv = env as unknown as Env;
type Seeded = Awaited<ReturnType<typeof seedTaskGuild>>;
const DAY = 86_400_000;

/** Files tasks straight into the database, without waking the queue. */
async function fileQuietly(org: Seeded, count: number): Promise<TaskRow[]> {
  return withDb(async (db) => {
    const filed: TaskRow[] = [];
    for (let i = 0; i < count; i++) {
      const task = await createTask(db, {
        organisationId: org.organisationId,
        guildId: org.guildId,
        agentId: org.agentId,
        repositoryId: org.repositoryId,
        fullName: "acme/web-app",
        title: `Task ${i}`,
        description: "",
        baseBranch: "main",
        allowForcePush: false,
      });
      filed.push(task!);
    }
    return filed;
  });
}

const statuses = async (ids: string[]) =>
  withDb(async (db) => {
    const rows = await db.select().from(tasks).where(inArray(tasks.id, ids));
    return Object.fromEntries(rows.map((r) => [r.id, r]));
  });

/** Opens an active task run for the task (a run row of kind task and its task run without an outcome). */
const openRun = (task: TaskRow) =>
  withDb(async (db) => {
    const [run] = await db.insert(runs).values({ agentId: task.agentId, kind: "task" }).returning();
    await db.insert(taskRuns).values({ taskId: task.id, runId: run!.id });
  });

const armedAt = (organisationId: string) => runInDurableObject(queueOf(organisationId), (_q: TaskQueueObject, state) => state.storage.getAlarm());

describe("the organisation's task queue", () => {
  it("TASK-007: six tasks filed at once with runs.maxConcurrent 4 make exactly four start attempts; two wait", async () => {
    const org = await seedTaskGuild("Queue six");
    const started = await recordStarts(org.organisationId);
    const filed = await Promise.all(Array.from({ length: 6 }, (_, i) => fileTask(org, { title: `Task ${i}` })));
    expect(filed.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(started).toHaveLength(4);
    expect(new Set(started).size).toBe(4);
    const rows = Object.values(await statuses(filed.map((r) => r.json.id)));
    expect(
      rows
        .filter((r) => r.status === "running")
        .map((r) => r.id)
        .sort(),
    ).toEqual([...started].sort());
    expect(rows.filter((r) => r.status === "queued")).toHaveLength(2);
  });

  it("TASK-007: due tasks start oldest first, as many as runs.maxConcurrent allows", async () => {
    const org = await seedTaskGuild("Queue order");
    const filed = await fileQuietly(org, 6);
    const base = Date.now() - 60_000;
    const offsets = [5, 2, 6, 1, 4, 3];
    await withDb(async (db) => {
      for (const [i, task] of filed.entries())
        await db
          .update(tasks)
          .set({ queuedAt: new Date(base + offsets[i]! * 1000) })
          .where(eq(tasks.id, task.id));
    });
    const started = await recordStarts(org.organisationId);
    await queueOf(org.organisationId).wake(org.organisationId);
    const byAge = filed.map((task, i) => ({ id: task.id, at: offsets[i]! })).sort((a, b) => a.at - b.at);
    expect(started).toEqual(byAge.slice(0, 4).map((t) => t.id));

    // A slot frees when a run ends; its task object wakes the queue, which starts the next oldest.
    await withDb((db) => moveTask(db, started[0]!, ["running"], "waiting"));
    await queueOf(org.organisationId).wake(org.organisationId);
    expect(started).toEqual(byAge.slice(0, 5).map((t) => t.id));
  });

  it("TASK-007: runs.maxConcurrent set lower leaves more tasks waiting", async () => {
    const org = await seedTaskGuild("Queue two");
    const patched = await call("PATCH", "/api/organisation/task-settings", { token: org.token, body: { "runs.maxConcurrent": 2 } });
    expect(patched.status).toBe(200);
    await fileQuietly(org, 3);
    const started = await recordStarts(org.organisationId);
    await queueOf(org.organisationId).wake(org.organisationId);
    expect(started).toHaveLength(2);
  });

  it("TASK-008: a task with an active run is never started again, and its run holds a slot", async () => {
    const org = await seedTaskGuild("Queue active");
    await call("PATCH", "/api/organisation/task-settings", { token: org.token, body: { "runs.maxConcurrent": 2 } });
    const [busy, other, third] = await fileQuietly(org, 3);
    await openRun(busy!);
    const started = await recordStarts(org.organisationId);
    await queueOf(org.organisationId).wake(org.organisationId);
    expect(started).toEqual([other!.id]);
    expect((await statuses([busy!.id, third!.id]))[third!.id]!.status).toBe("queued");
    expect(await withDb((db) => activeRunCount(db, org.organisationId))).toBe(1);
  });

  it("TASK-006: a task due later starts at its resume time, on the queue's alarm; a rate-limited one past its reset starts", async () => {
    const org = await seedTaskGuild("Queue later");
    const now = Date.now();
    const [later, limited] = await fileQuietly(org, 2);
    await withDb(async (db) => {
      await moveTask(db, later!.id, ["queued"], "queued", { resumeAt: new Date(now + 60_000) });
      await moveTask(db, limited!.id, ["queued"], "rate_limited", { resumeAt: new Date(now - 1_000) });
    });
    await setQueueClock(org.organisationId, now);
    const started = await recordStarts(org.organisationId);
    await queueOf(org.organisationId).wake(org.organisationId);
    expect(started).toEqual([limited!.id]);
    expect(await armedAt(org.organisationId)).toBe(now + 60_000);

    await setQueueClock(org.organisationId, now + 60_000);
    expect(await runDurableObjectAlarm(queueOf(org.organisationId))).toBe(true);
    expect(started).toEqual([limited!.id, later!.id]);
    expect((await statuses([later!.id]))[later!.id]!.status).toBe("running");
  });

  it("TASK-003: a refused or failed start puts the task back in the queue, due again shortly", async () => {
    const org = await seedTaskGuild("Queue refused");
    const now = Date.now();
    const [refused, thrown] = await fileQuietly(org, 2);
    await setQueueClock(org.organisationId, now);
    const started = await recordStarts(org.organisationId, async (taskId) => {
      if (taskId === thrown!.id) throw new Error("object unreachable");
      return { ok: false, status: 503, code: "task.runs_unavailable", message: "not here" };
    });
    await queueOf(org.organisationId).wake(org.organisationId);
    expect(started.sort()).toEqual([refused!.id, thrown!.id].sort());
    const rows = await statuses([refused!.id, thrown!.id]);
    for (const task of [refused!, thrown!]) {
      expect(rows[task.id]).toMatchObject({ status: "queued", resumeAt: new Date(now + REFUSED_START_DELAY_MS) });
    }
    expect(await armedAt(org.organisationId)).toBe(now + REFUSED_START_DELAY_MS);
  });

  it("TASK-037: the hourly sweep deletes the volumes of tasks closed 7 days or idle 30 days, once each", async () => {
    const org = await seedTaskGuild("Queue volumes");
    const now = Date.now();
    const [closedLong, closedRecently, idle, idleButRunning, neverRan] = await fileQuietly(org, 5);
    await withDb(async (db) => {
      const set = (task: TaskRow, values: Partial<TaskRow>) => db.update(tasks).set(values).where(eq(tasks.id, task.id));
      await set(closedLong!, { status: "completed", closedAt: new Date(now - 8 * DAY), lastRunEndedAt: new Date(now - 8 * DAY) });
      await set(closedRecently!, { status: "cancelled", closedAt: new Date(now - DAY), lastRunEndedAt: new Date(now - DAY) });
      await set(idle!, { status: "waiting", lastRunEndedAt: new Date(now - 31 * DAY) });
      await set(idleButRunning!, { status: "running", lastRunEndedAt: new Date(now - 31 * DAY) });
      await set(neverRan!, { status: "blocked" });
    });
    await openRun(idleButRunning!);
    const all = [closedLong!, closedRecently!, idle!, idleButRunning!, neverRan!];
    const keyOf = (task: TaskRow) => volumeObjectKey(task.repositoryId, task.key);
    for (const task of all) await testEnv.SANDBOX_HOMES.put(keyOf(task), "tar");
    const present = async () => Promise.all(all.map(async (task) => (await testEnv.SANDBOX_HOMES.head(keyOf(task))) !== null));

    await setQueueClock(org.organisationId, now);
    await recordStarts(org.organisationId);
    await queueOf(org.organisationId).wake(org.organisationId);
    expect(await armedAt(org.organisationId)).toBe(now + VOLUME_SWEEP_MS);
    expect(await present()).toEqual([true, true, true, true, true]);

    await setQueueClock(org.organisationId, now + VOLUME_SWEEP_MS);
    await runDurableObjectAlarm(queueOf(org.organisationId));
    expect(await present()).toEqual([false, true, false, true, true]);
    expect(await armedAt(org.organisationId)).toBe(now + 2 * VOLUME_SWEEP_MS);

    // Each expiry is swept once: the next sweep reads only what expired since.
    await testEnv.SANDBOX_HOMES.put(keyOf(closedLong!), "tar");
    await setQueueClock(org.organisationId, now + 2 * VOLUME_SWEEP_MS);
    await runDurableObjectAlarm(queueOf(org.organisationId));
    expect(await present()).toEqual([true, true, false, true, true]);
  });
});
