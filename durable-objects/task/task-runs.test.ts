import { runInDurableObject } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { taskObject } from "../../bindings/objects";
import { runs, taskMessages, tasks } from "../../core/db/schema";
import { deliverMessages, settleTask } from "../../core/db/task-run";
import { activeRunOf, seedTask, testEnv, withDb } from "../../test/workerd/task-runs";
import type { TaskObject } from "./task-object";
import { KEEP_ALIVE, TaskWait } from "./turn-boundary";

describe("task run writes", () => {
  it("TASK-019: queued messages become one user row, delivered in the same statement", async () => {
    const { task, agentId } = await seedTask();
    const { runId } = await activeRunOf(agentId, task.id);
    await withDb(async (db) => {
      const queued = await db
        .insert(taskMessages)
        .values([
          { taskId: task.id, content: "first" },
          { taskId: task.id, content: "second" },
        ])
        .returning();
      const at = new Date();
      const row = await deliverMessages(
        db,
        {
          runId,
          seq: 0,
          generation: 2,
          role: "user",
          payload: { role: "user", content: "first\n\nsecond" },
          metadata: { source: "task_message" },
          tokenCount: 3,
        },
        queued.map((m) => m.id),
        at,
      );
      expect(row).toMatchObject({ seq: 0, generation: 2, role: "user" });
      const delivered = await db.select().from(taskMessages).where(eq(taskMessages.taskId, task.id));
      expect(delivered.every((m) => m.deliveredRunId === runId && m.deliveredAt?.getTime() === at.getTime())).toBe(true);
      const [run] = await db.select().from(runs).where(eq(runs.id, runId));
      expect(run!.generation).toBe(2);
    });
  });

  it("TASK-030 / TASK-032: the task's status after a run reads its status now and its undelivered messages", async () => {
    const { task } = await seedTask();
    await withDb(async (db) => {
      const now = new Date();
      expect((await settleTask(db, task.id, { outcome: "end_turn" }, now))?.status).toBe("waiting");
      await db.insert(taskMessages).values({ taskId: task.id, content: "one more thing" });
      expect((await settleTask(db, task.id, { outcome: "end_turn" }, now))?.status).toBe("queued");
      const [queued] = await db.select().from(tasks).where(eq(tasks.id, task.id));
      expect(queued!.queuedAt.getTime()).toBe(now.getTime());
      await db.update(tasks).set({ status: "cancelled" }).where(eq(tasks.id, task.id));
      expect((await settleTask(db, task.id, { outcome: "completed" }, now))?.status).toBe("cancelled");
      await db.update(tasks).set({ status: "running", autoResumes: 3 }).where(eq(tasks.id, task.id));
      await db.update(taskMessages).set({ deliveredAt: now }).where(eq(taskMessages.taskId, task.id));
      const failed = await settleTask(db, task.id, { outcome: "sandbox_lost" }, now);
      expect(failed?.status).toBe("failed");
      const [closed] = await db.select().from(tasks).where(eq(tasks.id, task.id));
      expect(closed!.closedAt?.getTime()).toBe(now.getTime());
    });
  });

  it("TASK-019 / TASK-020: a waiting run wakes for a message, or at its keep-alive deadline on the object's alarm", async () => {
    const stub = taskObject(testEnv, crypto.randomUUID());
    await runInDurableObject(stub, async (object: TaskObject) => {
      const { deadlines } = object.rooms.context;
      const dueAt = Date.UTC(2100, 0, 1);
      const wait = new TaskWait();
      const waiting = wait.until(deadlines, dueAt);
      await new Promise((r) => setTimeout(r, 10));
      expect(deadlines.get(KEEP_ALIVE)?.dueAt).toBe(dueAt);
      wait.wake("timeout");
      expect(await waiting).toBe("timeout");
      expect(deadlines.get(KEEP_ALIVE)).toBeNull();
      // A message that came during a turn is not lost: the next wait returns at once.
      wait.wake("message");
      expect(await wait.until(deadlines, dueAt)).toBe("message");
      expect(deadlines.get(KEEP_ALIVE)).toBeNull();
      // A late keep-alive with nobody waiting is ignored; a stop is kept over a message.
      wait.wake("timeout");
      wait.wake("stop");
      wait.wake("message");
      expect(await wait.until(deadlines, dueAt)).toBe("stop");
    });
  });
});
