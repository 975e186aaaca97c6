import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { Env } from "../../bindings/env";
import { openDatabase } from "../../core/db/client";
import type { TaskQueueObject, TaskStarter } from "../../durable-objects/task/queue-object";
import { newAgent } from "./agents";
import { call, seedGuild } from "./seed";

export const testEnv = env as unknown as Env;

/** A fresh organisation with a guild, a coding agent and a public repository: what task tests start from. */
export async function seedTaskGuild(name = "Tasks org", fullName = "acme/web-app") {
  const seeded = await seedGuild(name);
  const agent = await newAgent(seeded.token, seeded.guildId, { coding: true });
  const repository = await call("POST", `/api/guilds/${seeded.guildId}/repositories`, {
    token: seeded.token,
    body: { full_name: fullName, default_branch: "trunk" },
  });
  expect(repository.status, JSON.stringify(repository.json)).toBe(201);
  return { ...seeded, agentId: agent.id, repositoryId: repository.json.id as string };
}

type Seeded = Awaited<ReturnType<typeof seedTaskGuild>>;

/** Files a task through the API. */
export async function fileTask(seeded: Seeded, body: Record<string, unknown> = {}) {
  return call("POST", `/api/guilds/${seeded.guildId}/tasks`, {
    token: seeded.token,
    body: { title: "Fix the build", agent_id: seeded.agentId, repository_id: seeded.repositoryId, ...body },
  });
}

/** Runs `use` with a database connection of its own. */
export async function withDb<T>(use: (db: ReturnType<typeof openDatabase>["db"]) => Promise<T>): Promise<T> {
  const { db, close } = openDatabase(testEnv);
  try {
    return await use(db);
  } finally {
    await close();
  }
}

/** The organisation's queue object, as the Worker addresses it. */
export function queueOf(organisationId: string): DurableObjectStub<TaskQueueObject> {
  return testEnv.TASK_QUEUE.get(testEnv.TASK_QUEUE.idFromName(organisationId));
}

/**
 * Puts a recording starter in the queue's place of the task objects: each start is noted
 * (in order) and answered by `answer`.
 */
export async function recordStarts(organisationId: string, answer: TaskStarter["start"] = async () => ({ ok: true, runId: crypto.randomUUID() })) {
  const started: string[] = [];
  await runInDurableObject(queueOf(organisationId), (queue: TaskQueueObject) => {
    queue.starter = {
      start: (taskId) => {
        started.push(taskId);
        return answer(taskId);
      },
    };
  });
  return started;
}

/** Sets the queue's clock. */
export async function setQueueClock(organisationId: string, ms: number): Promise<void> {
  await runInDurableObject(queueOf(organisationId), (queue: TaskQueueObject) => {
    queue.now = () => ms;
  });
}
