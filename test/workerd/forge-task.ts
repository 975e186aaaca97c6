import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { checksReader } from "../../bindings/checks";
import { githubApp } from "../../bindings/github";
import type { Database } from "../../core/db/client";
import { runs, taskRuns, tasks } from "../../core/db/schema";
import { organisationTaskSettings } from "../../core/db/task-settings";
import type { ChecksReader } from "../../core/github/checks-api";
import { githubForge } from "../../core/github/forge-plugin";
import type { ChecksEvent, ForgeDelivery } from "../../core/github/webhook-event";
import { actOnChecks, checksEffects } from "../../durable-objects/forge/checks";
import { readyWhenGreen } from "../../durable-objects/task/ready-when-green";
import { newAgent } from "./agents";
import { forgePush } from "./forge-branch";
import { claim, forgeAdmin } from "./github";
import { call, seedGuild } from "./seed";
import { recordStarts, testEnv, withDb } from "./tasks";

/**
 * A task on the local forge for the checks' tests (ISSUE-33): its branch pushed, its draft
 * pull request open, and what the platform does when a check completes or a run completes,
 * read back through the API and the forge.
 */

export const ZERO = "0".repeat(40);

/** An organisation whose guild has a connected forge repository and a coding agent; the queue's starts recorded, not made (no box runs here). */
export async function seedForgeRepository(name: string) {
  const seeded = await seedGuild(name);
  const account = `ck${crypto.randomUUID().slice(0, 8)}`;
  const fullName = `${account}/app`;
  await forgeAdmin("POST", "/repos", { full_name: fullName, private: true });
  const { connection, installationId } = await claim(seeded.token, account, ["app"]);
  const agent = await newAgent(seeded.token, seeded.guildId, { coding: true });
  const repository = await call("POST", `/api/guilds/${seeded.guildId}/repositories`, {
    token: seeded.token,
    body: { full_name: fullName, connection_id: connection.json.id },
  });
  expect(repository.status, JSON.stringify(repository.json)).toBe(201);
  await recordStarts(seeded.organisationId);
  const forgeToken = (await githubApp(testEnv)!.mintRepositoryToken(installationId, fullName)).token;
  const main = (await forgeAdmin("GET", `/repos/${fullName}`)).json.branches.find((b: { name: string }) => b.name === "main").sha as string;
  return { ...seeded, fullName, installationId, forgeToken, main, repositoryId: repository.json.id as string, agentId: agent.id };
}

/** A task of a forge repository (seedForgeRepository) with its branch pushed and a draft pull request, in review. */
export async function seedForgeTask(name: string) {
  const repo = await seedForgeRepository(name);
  const filed = await call("POST", `/api/guilds/${repo.guildId}/tasks`, {
    token: repo.token,
    body: { title: "Fix the build", agent_id: repo.agentId, repository_id: repo.repositoryId },
  });
  expect(filed.status, JSON.stringify(filed.json)).toBe(201);
  const task = filed.json as { id: string; key: string; branch: string; queued_at: string };
  const head = await forgePush(repo.fullName, repo.forgeToken, task.branch, ZERO, repo.main, "the agent's work");
  const pull = await githubForge({ apiUrl: testEnv.GITHUB_API_URL!, token: repo.forgeToken }).openDraftPR({
    fullName: repo.fullName,
    head: task.branch,
    base: "main",
    title: task.key,
    body: "",
  });
  await withDb((db) => db.update(tasks).set({ status: "in_review", pullRequestNumber: pull.number, pullRequestUrl: pull.url }).where(eq(tasks.id, task.id)));
  return { ...repo, task, head, pull };
}

export type Seeded = Awaited<ReturnType<typeof seedForgeTask>>;

/** A check suite (or run) completing on `sha` of the task's branch, as the inbox hands it over. */
export function delivery(seeded: Seeded, sha: string, source: ChecksEvent["source"] = "check_suite"): ForgeDelivery {
  return {
    id: crypto.randomUUID(),
    deliveryId: crypto.randomUUID(),
    organisationId: seeded.organisationId,
    origin: "http://api.test",
    event: {
      kind: "checks",
      source,
      repository: seeded.fullName,
      installationId: seeded.installationId,
      sender: { login: "forge[bot]", id: 1 },
      headSha: sha,
      headBranch: seeded.task.branch,
      pullNumbers: [seeded.pull.number],
      conclusion: null,
    },
  };
}

/** A check completing on `sha` acted on; the checks read through `reader` (the repository's installation when absent). */
export async function act(seeded: Seeded, db: Database, reader: ChecksReader | undefined, sha = seeded.head, source?: ChecksEvent["source"]) {
  await recordQueue(seeded);
  return actOnChecks({ env: testEnv, db, now: () => Date.now(), ...(reader ? { checks: async () => reader } : {}) }, delivery(seeded, sha, source));
}

/** What a run's finalizing asks when it completed with a pull request; the checks read through `reader` (the installation's when absent). */
export async function complete(seeded: Seeded, db: Database, reader?: ChecksReader) {
  await recordQueue(seeded);
  const target = {
    task: (await db.select().from(tasks).where(eq(tasks.id, seeded.task.id)))[0]!,
    fullName: seeded.fullName,
    installationId: seeded.installationId,
    checksSeenAt: null,
  };
  return readyWhenGreen({
    ...checksEffects({ env: testEnv, db, now: () => Date.now() }, target),
    taskId: seeded.task.id,
    requiresChecks: (await organisationTaskSettings(db, seeded.organisationId))["runs.readyRequiresChecks"],
    reader: async (target) => reader ?? checksReader(testEnv, target),
    log: () => {},
  });
}

/**
 * Whether a message queued the task again since it was filed: its queued_at moved, and it is
 * queued (or the queue, whose starts are recorded, took it since).
 */
export async function queuedAgain(seeded: Seeded): Promise<boolean> {
  const task = await getTask(seeded);
  return Date.parse(task.queued_at) > Date.parse(seeded.task.queued_at) && (task.status === "queued" || task.status === "running");
}

/**
 * The queue's starts recorded again, right before acting: an object idle for a while may have
 * been evicted, and with it the recorder, so no box is ever started here.
 */
const recordQueue = (seeded: Seeded) => recordStarts(seeded.organisationId);

export const getTask = async (seeded: Seeded) => (await call("GET", `/api/tasks/${seeded.task.id}`, { token: seeded.token })).json;
export const messagesOf = async (seeded: Seeded) =>
  (await call("GET", `/api/tasks/${seeded.task.id}/messages`, { token: seeded.token })).json.data as Array<{ content: string }>;
export const pullOf = async (seeded: Seeded) =>
  (await forgeAdmin("GET", `/repos/${seeded.fullName}/pulls`)).json.pulls.find((p: { number: number }) => p.number === seeded.pull.number);

/** A completed run of the task whose report carries the agent's summary. */
export async function completedRun(seeded: Seeded, summary: string) {
  await withDb(async (db) => {
    const [run] = await db.insert(runs).values({ agentId: seeded.agentId, kind: "task" }).returning();
    await db.insert(taskRuns).values({ taskId: seeded.task.id, runId: run!.id, outcome: "completed", endedAt: new Date(), report: { summary } });
  });
}
