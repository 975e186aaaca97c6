import { eq } from "drizzle-orm";
import { guildRepositories, runs, taskRuns, tasks } from "../../core/db/schema";
import { newAgent } from "./agents";
import { seedGuild } from "./seed";
import { testEnv, withDb } from "./tasks";

export { testEnv, withDb };

/** Shared by the task object's tests: a seeded task, its runs. */

/** A coding agent's task in a fresh guild's repository, marked running as the queue does; `fields` set more of it (a budget). */
export async function seedTask(fields: Partial<typeof tasks.$inferInsert> = {}) {
  const { token, organisationId, guildId } = await seedGuild();
  const agent = await newAgent(token, guildId, { coding: true });
  return withDb(async (db) => {
    const [repository] = await db
      .insert(guildRepositories)
      .values({ guildId, fullName: `acme/app-${crypto.randomUUID().slice(0, 6)}`, taskCounter: 1 })
      .returning();
    const [task] = await db
      .insert(tasks)
      .values({
        organisationId,
        guildId,
        agentId: agent.id,
        repositoryId: repository!.id,
        number: 1,
        key: "APP-1",
        title: "Fix the login form",
        description: "It breaks on submit.",
        baseBranch: "main",
        status: "running",
        ...fields,
      })
      .returning();
    return { token, organisationId, agentId: agent.id, model: agent.model, task: task!, repositoryId: repository!.id };
  });
}

/** The task's runs with their outcomes, once none is active and the task heard of the last ending (or the time runs out). */
export async function untilEnded(taskId: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await withDb((db) => db.select().from(taskRuns).where(eq(taskRuns.taskId, taskId)));
    const [task] = await withDb((db) => db.select({ lastRunEndedAt: tasks.lastRunEndedAt }).from(tasks).where(eq(tasks.id, taskId)));
    const settled = task?.lastRunEndedAt && rows.every((r) => r.endedAt && r.endedAt <= task.lastRunEndedAt!);
    if (rows.length && rows.every((r) => r.outcome !== null) && settled) return rows;
    if (Date.now() > deadline) throw new Error(`the task's run did not end: ${JSON.stringify(rows)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An active task run written as another instance would have left it. */
export async function activeRunOf(agentId: string, taskId: string) {
  return withDb(async (db) => {
    const [run] = await db.insert(runs).values({ agentId, kind: "task" }).returning();
    const [taskRun] = await db.insert(taskRuns).values({ taskId, runId: run!.id }).returning();
    return { runId: run!.id, taskRunId: taskRun!.id };
  });
}
