import { expect } from "vitest";
import type { ForgeDelivery, ForgeEvent, ForgeSender } from "../../core/github/webhook-event";
import { actOnDelivery } from "../../durable-objects/forge/act";
import { newAgent } from "./agents";
import { claim, forgeAdmin } from "./github";
import { call, seedGuild } from "./seed";
import { recordStarts, testEnv, withDb } from "./tasks";

/**
 * What webhook deliveries do to tasks, tested without the door: a delivery built as the
 * organisation's inbox hands it over, acted on directly (durable-objects/forge/act.ts), with
 * the local forge answering for GitHub (senders' access, the platform's comments).
 */

/** Where the console's links in the platform's comments point. */
export const ORIGIN = "https://console.test";

/** A GitHub user: the forge numbers them by login. */
export const sender = (login: string): ForgeSender => ({ login, id: 1000 + login.length });

/**
 * An organisation with a guild, a coding agent "Builder" as the task agent of a private
 * forge repository `<account>/app` reached through its claimed installation, and people with
 * each access: alice writes, bob administers, carol reads. The queue's starts are refused,
 * so filed tasks stay queued.
 */
export async function seedIssueRepository(name: string, account: string) {
  const seeded = await seedGuild(name);
  const fullName = `${account}/app`;
  expect((await forgeAdmin("POST", "/repos", { full_name: fullName, private: true, default_branch: "trunk" })).status).toBe(201);
  for (const [user, permission] of [
    ["alice", "write"],
    ["bob", "admin"],
    ["carol", "read"],
  ]) {
    expect((await forgeAdmin("PUT", `/repos/${fullName}/collaborators/${user}`, { permission })).status).toBe(200);
  }
  const { connection, installationId } = await claim(seeded.token, account, ["app"]);
  expect(connection.status).toBe(201);
  const agent = await newAgent(seeded.token, seeded.guildId, { name: "Builder", coding: true });
  const repository = await call("POST", `/api/guilds/${seeded.guildId}/repositories`, {
    token: seeded.token,
    body: { full_name: fullName, connection_id: connection.json.id, default_branch: "trunk", task_agent_id: agent.id },
  });
  expect(repository.status, JSON.stringify(repository.json)).toBe(201);
  const started = await recordStarts(seeded.organisationId, async () => ({ ok: false, status: 503, code: "task.runs_unavailable", message: "not here" }));
  return { ...seeded, fullName, installationId, agentId: agent.id, repositoryId: repository.json.id as string, started };
}

export type IssueRepository = Awaited<ReturnType<typeof seedIssueRepository>>;

/** The event as the normaliser gives it, for the seeded repository. */
export const on = (seeded: IssueRepository, event: DistributiveOmit<ForgeEvent, "repository" | "installationId">): ForgeEvent =>
  ({ ...event, repository: seeded.fullName, installationId: seeded.installationId }) as ForgeEvent;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Acts on the event as the organisation's inbox would, one fresh delivery each time. */
export async function act(seeded: IssueRepository, event: ForgeEvent) {
  const delivery: ForgeDelivery = { id: crypto.randomUUID(), deliveryId: crypto.randomUUID(), organisationId: seeded.organisationId, event, origin: ORIGIN };
  return withDb((db) => actOnDelivery({ env: testEnv, db: db as never, now: () => Date.now() }, delivery));
}

/** An issue filed on the forge by `user`: its number, page, title and body as GitHub has them. */
export async function fileIssue(seeded: IssueRepository, user: string, fields: { title: string; body?: string; labels?: string[] }) {
  const res = await forgeAdmin("POST", `/repos/${seeded.fullName}/issues`, { user, ...fields });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { number: res.json.number as number, url: res.json.html_url as string, title: res.json.title as string, body: (res.json.body ?? "") as string };
}

/** The comments on an issue as the forge keeps them: who wrote each and what. */
export async function issueComments(seeded: IssueRepository, number: number): Promise<Array<{ user: string; body: string }>> {
  const res = await forgeAdmin("GET", `/repos/${seeded.fullName}/issues`);
  const issue = res.json.issues.find((i: { number: number }) => i.number === number);
  return (issue?.comments ?? []).map((c: { user: string; body: string }) => ({ user: c.user, body: c.body }));
}

/** The login the platform's comments are by: its App's bot. */
export const platformBot = () => `${testEnv.GITHUB_APP_SLUG}[bot]`;

/** The guild's tasks, newest first. */
export const guildTasks = async (seeded: IssueRepository) =>
  (await call("GET", `/api/guilds/${seeded.guildId}/tasks`, { token: seeded.token })).json.data as any[];

/** The task's messages, newest first. */
export const taskMessages = async (seeded: IssueRepository, taskId: string) =>
  (await call("GET", `/api/tasks/${taskId}/messages`, { token: seeded.token })).json.data as Array<{ content: string }>;
