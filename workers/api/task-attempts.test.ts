import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { attemptsForge } from "../../bindings/task-attempts";
import { guildRepositories, runs, taskRuns, tasks } from "../../core/db/schema";
import { settleParent } from "../../core/db/task-attempts-settle";
import { newAgent } from "../../test/workerd/agents";
import { act, type IssueRepository, on, sender } from "../../test/workerd/forge-acts";
import { forgeBranches, pushFiles } from "../../test/workerd/forge-push";
import { claim, forgeAdmin } from "../../test/workerd/github";
import { call, seedGuild } from "../../test/workerd/seed";
import { fileTask, recordStarts, seedTaskGuild, testEnv, withDb } from "../../test/workerd/tasks";

/** Best of N (issue 33): a task's attempts side by side, the winner picked by its checks and its diff, the losers' branches deleted. */

const README = "hello\n";

/** A guild whose coding agent works in a private forge repository reached through a claimed installation. */
async function seedForgeGuild(name: string) {
  const account = `bo${crypto.randomUUID().slice(0, 8)}`;
  const fullName = `${account}/app`;
  expect((await forgeAdmin("POST", "/repos", { full_name: fullName, private: true, files: { "README.md": README } })).status).toBe(201);
  const seeded = await seedGuild(name);
  const agent = await newAgent(seeded.token, seeded.guildId, { coding: true });
  const { connection, installationId } = await claim(seeded.token, account, ["app"]);
  const repository = await call("POST", `/api/guilds/${seeded.guildId}/repositories`, {
    token: seeded.token,
    body: { full_name: fullName, connection_id: connection.json.id },
  });
  expect(repository.status, JSON.stringify(repository.json)).toBe(201);
  // The queue's starts are refused (a recorder stands in for the task object): the test drives the attempts.
  await recordStarts(seeded.organisationId, async () => ({ ok: false, status: 503, code: "task.runs_unavailable", message: "not here" }));
  return { ...seeded, agentId: agent.id, repositoryId: repository.json.id as string, fullName, installationId: installationId as number };
}

type ForgeGuild = Awaited<ReturnType<typeof seedForgeGuild>>;

/** Files a best-of-N task on the forge repository's main; its detail with the attempts. */
async function fileBestOf(org: ForgeGuild, attempts: number) {
  const filed = await fileTask(org, { title: "Fix the parser", description: "It drops the last line.", attempts, base_branch: "main" });
  expect(filed.status, JSON.stringify(filed.json)).toBe(201);
  const detail = await call("GET", `/api/tasks/${filed.json.id}`, { token: org.token });
  return detail.json;
}

/**
 * Attempt `i` ends as its runs would have left it: its status, its branch on the forge with
 * `lines` lines in a file of its own, and its checks as the checks' handler stores them.
 */
async function endAttempt(org: ForgeGuild, attempt: { id: string; key: string }, status: string, checks: string | null, lines: number) {
  // The checks as the handler stores them: for the branch's head commit.
  let head = "0".repeat(40);
  if (lines > 0) {
    const file = Array.from({ length: lines }, (_, i) => `line ${i}`).join("\n");
    head = await pushFiles(testEnv, org.installationId, org.fullName, "main", `factory/task/${attempt.key}`, {
      "README.md": README,
      [`fix-${lines}.txt`]: `${file}\n`,
    });
  }
  await withDb(async (db) => {
    const [run] = await db.insert(runs).values({ agentId: org.agentId, kind: "task" }).returning();
    await db.insert(taskRuns).values({
      taskId: attempt.id,
      runId: run!.id,
      outcome: status === "completed" ? "completed" : "failed",
      endedAt: new Date(),
      report: { summary: `Summary of ${attempt.key}` },
    });
    await db
      .update(tasks)
      .set({
        status,
        closedAt: new Date(),
        ...(checks ? { checks: { head_sha: head, state: checks, runs: [], updated_at: new Date().toISOString() } } : {}),
      })
      .where(eq(tasks.id, attempt.id));
  });
}

const settle = (parentId: string) => withDb(async (db) => settleParent(db, await attemptsForge(testEnv, db, parentId), parentId));
const pulls = async (fullName: string) => (await forgeAdmin("GET", `/repos/${fullName}/pulls`)).json.pulls as Array<Record<string, any>>;
const markChecksSeen = (repositoryId: string) =>
  withDb((db) => db.update(guildRepositories).set({ checksSeenAt: sql`now()` }).where(eq(guildRepositories.id, repositoryId)));

describe("filing a best-of-N task", () => {
  let org: Awaited<ReturnType<typeof seedTaskGuild>>;
  beforeAll(async () => {
    org = await seedTaskGuild("Best of N filing", "acme/best-of");
    await recordStarts(org.organisationId, async () => ({ ok: false, status: 503, code: "task.runs_unavailable", message: "not here" }));
  });

  it("ISSUE-33: attempts 3 files a parent and 3 queued attempts keyed <KEY>/a<i> on factory/task/<KEY>/a<i>; the list shows the parent only", async () => {
    const filed = await fileTask(org, { title: "Fix the build", attempts: 3 });
    expect(filed.status, JSON.stringify(filed.json)).toBe(201);
    expect(filed.json).toMatchObject({ key: "BESTOF-1", number: 1, best_of: 3, parent_task_id: null, attempt: null, status: "running" });
    const detail = await call("GET", `/api/tasks/${filed.json.id}`, { token: org.token });
    expect(detail.json.attempts).toEqual(
      [1, 2, 3].map((i) =>
        expect.objectContaining({
          key: `BESTOF-1/a${i}`,
          attempt: i,
          status: "queued",
          branch: `factory/task/BESTOF-1/a${i}`,
          checks: "none",
          diffstat: null,
          spend_usd: 0,
          won: false,
        }),
      ),
    );
    const first = await call("GET", `/api/tasks/${detail.json.attempts[0].id}`, { token: org.token });
    expect(first.json).toMatchObject({
      title: "Fix the build (attempt 1 of 3)",
      number: 2,
      parent_task_id: filed.json.id,
      attempt: 1,
      best_of: 1,
      agent_id: org.agentId,
      base_branch: "trunk",
      attempts: [],
    });
    // The next task takes the number after the attempts'.
    expect((await fileTask(org, { title: "Next" })).json).toMatchObject({ key: "BESTOF-5", number: 5, best_of: 1 });
    const listed = (await call("GET", `/api/guilds/${org.guildId}/tasks`, { token: org.token })).json.data.map((t: { key: string }) => t.key);
    expect(listed).toEqual(["BESTOF-5", "BESTOF-1"]);
  });

  it("ISSUE-33: attempts outside 1..4 or not a whole number is a 422 naming attempts", async () => {
    for (const attempts of [0, 5, 2.5, "3", null]) {
      const res = await fileTask(org, { attempts });
      expect(res.status, JSON.stringify(attempts)).toBe(422);
      expect(res.json.error.details.fields.map((f: { field: string }) => f.field)).toContain("attempts");
    }
  });

  it("ISSUE-33: the queue starts attempts up to runs.maxConcurrent and never the parent", async () => {
    const fresh = await seedTaskGuild("Best of N queue", "acme/queue");
    expect((await call("PATCH", "/api/organisation/task-settings", { token: fresh.token, body: { "runs.maxConcurrent": 2 } })).status).toBe(200);
    const started = await recordStarts(fresh.organisationId);
    const filed = await fileTask(fresh, { attempts: 3 });
    const attempts = (await call("GET", `/api/tasks/${filed.json.id}`, { token: fresh.token })).json.attempts as Array<{ id: string }>;
    // Two of the three attempts (filed at the same instant, so in no set order), never the parent.
    expect(started).toHaveLength(2);
    expect(attempts.map((a) => a.id)).toEqual(expect.arrayContaining(started));
    expect(started).not.toContain(filed.json.id);
    const statuses = (await call("GET", `/api/tasks/${filed.json.id}`, { token: fresh.token })).json.attempts.map((a: { status: string }) => a.status);
    expect(statuses.sort()).toEqual(["queued", "running", "running"]);
    expect((await call("GET", `/api/tasks/${filed.json.id}`, { token: fresh.token })).json.status).toBe("running");
  });

  it("ISSUE-33: cancelling the parent cancels its open attempts", async () => {
    const filed = await fileTask(org, { attempts: 2 });
    const cancelled = await call("POST", `/api/tasks/${filed.json.id}/cancel`, { token: org.token });
    expect(cancelled.json.status).toBe("cancelled");
    const detail = await call("GET", `/api/tasks/${filed.json.id}`, { token: org.token });
    expect(detail.json.attempts.map((a: { status: string }) => a.status)).toEqual(["cancelled", "cancelled"]);
    // A message to a parent nothing was picked from has nowhere to go.
    const message = await call("POST", `/api/tasks/${filed.json.id}/messages`, { token: org.token, body: { content: "hi" } });
    expect(message.status).toBe(409);
    expect(message.json.error.code).toBe("task.no_winner");
  });
});

describe("picking the winner on the forge", () => {
  let org: ForgeGuild;
  beforeAll(async () => {
    org = await seedForgeGuild("Best of N forge");
    await markChecksSeen(org.repositoryId);
  });

  it("ISSUE-33: the pull request comes from the passing attempt's branch, ready, and the parent is in review with it; two evaluations at once open one", async () => {
    const parent = await fileBestOf(org, 3);
    const [a1, a2, a3] = parent.attempts;
    await endAttempt(org, a1, "completed", "failing", 2);
    await endAttempt(org, a2, "completed", "passing", 6);
    // Nothing is decided while an attempt is open.
    expect(await settle(parent.id)).toMatchObject({ kind: "wait" });
    expect(await pulls(org.fullName)).toEqual([]);
    await endAttempt(org, a3, "failed", null, 1);
    const verdicts = await Promise.all([settle(parent.id), settle(parent.id)]);
    expect(verdicts.filter((v) => v?.kind === "winner")).toHaveLength(2);
    const opened = await pulls(org.fullName);
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ head: `factory/task/${a2.key}`, base: "main", draft: false });
    expect(opened[0]!.body).toContain("Summary of");
    expect(opened[0]!.body).toContain(`**${a2.key}** (picked)`);
    const detail = (await call("GET", `/api/tasks/${parent.id}`, { token: org.token })).json;
    expect(detail).toMatchObject({ status: "in_review", pull_request: { number: opened[0]!.number } });
    expect(detail.attempts.map((a: { won: boolean }) => a.won)).toEqual([false, true, false]);
    expect(detail.attempts[1].diffstat).toEqual({ additions: 6, deletions: 0 });
    expect(detail.attempts[0].checks).toBe("failing");

    // A message to the parent reaches the winner, which opens again to work on the pull request's branch.
    const message = await call("POST", `/api/tasks/${parent.id}/messages`, { token: org.token, body: { content: "Please rename the parser function." } });
    expect(message.status).toBe(202);
    expect(message.json.task_id).toBe(a2.id);
    expect((await call("GET", `/api/tasks/${a2.id}`, { token: org.token })).json).toMatchObject({
      status: "queued",
      pull_request: { number: opened[0]!.number },
    });

    // Closing the parent deletes the losers' branches; the winner's stays.
    expect((await forgeBranches(org.fullName)).filter((b) => b.startsWith("factory/"))).toHaveLength(3);
    const done = await call("POST", `/api/tasks/${parent.id}/done`, { token: org.token });
    expect(done.json.status).toBe("completed");
    expect(await forgeBranches(org.fullName)).toEqual([`factory/task/${a2.key}`, "main"]);
    expect((await call("GET", `/api/tasks/${a2.id}`, { token: org.token })).json.status).toBe("completed");
  });

  it("ISSUE-33: none passing: the parent waits, says so with every attempt, opens nothing and keeps every branch", async () => {
    const fresh = await seedForgeGuild("Best of N none");
    await markChecksSeen(fresh.repositoryId);
    const parent = await fileBestOf(fresh, 2);
    await endAttempt(fresh, parent.attempts[0], "completed", "failing", 3);
    await endAttempt(fresh, parent.attempts[1], "completed", "failing", 4);
    expect(await settle(parent.id)).toEqual({ kind: "none", reason: "no attempt passed its checks" });
    expect((await call("GET", `/api/tasks/${parent.id}`, { token: fresh.token })).json).toMatchObject({ status: "waiting", pull_request: null });
    const messages = (await call("GET", `/api/tasks/${parent.id}/messages`, { token: fresh.token })).json.data;
    expect(messages).toHaveLength(1);
    expect(messages[0].content).toMatch(/^No attempt passed its checks/);
    expect(messages[0].content).toContain(`${parent.attempts[1].key} (factory/task/${parent.attempts[1].key}): completed, checks failing, +4 −0`);
    expect(await pulls(fresh.fullName)).toEqual([]);
    await call("POST", `/api/tasks/${parent.id}/cancel`, { token: fresh.token });
    expect((await forgeBranches(fresh.fullName)).filter((b) => b.startsWith("factory/"))).toHaveLength(2);
  });

  it("ISSUE-33: a repository without checks picks the completed attempt with the smallest diff", async () => {
    const fresh = await seedForgeGuild("Best of N no checks");
    const parent = await fileBestOf(fresh, 3);
    await endAttempt(fresh, parent.attempts[0], "completed", null, 9);
    await endAttempt(fresh, parent.attempts[1], "completed", null, 5);
    await endAttempt(fresh, parent.attempts[2], "cancelled", null, 1);
    expect(await settle(parent.id)).toMatchObject({ kind: "winner", attempt: 2 });
    expect((await pulls(fresh.fullName)).map((p) => p.head)).toEqual([`factory/task/${parent.attempts[1].key}`]);
  });

  it("ISSUE-33: a review on the parent's pull request reaches the winner once; merged, the parent and its winner complete and the losers' branches go", async () => {
    const fresh = await seedForgeGuild("Best of N merged");
    expect((await forgeAdmin("PUT", `/repos/${fresh.fullName}/collaborators/alice`, { permission: "write" })).status).toBe(200);
    const parent = await fileBestOf(fresh, 2);
    await endAttempt(fresh, parent.attempts[0], "completed", null, 2);
    await endAttempt(fresh, parent.attempts[1], "completed", null, 5);
    expect(await settle(parent.id)).toMatchObject({ kind: "winner", attempt: 1 });
    const [pull] = await pulls(fresh.fullName);
    const seeded = fresh as unknown as IssueRepository;
    const reviewed = await act(
      seeded,
      on(seeded, {
        kind: "review",
        number: pull!.number,
        state: "changes_requested",
        body: "Name it parseLine.",
        url: `${pull!.html_url}#r1`,
        headRef: pull!.head,
        sender: sender("alice"),
      }),
    );
    expect(reviewed).toEqual({ outcome: "accepted", detail: `message to ${parent.key}` });
    const winnerMessages = (await call("GET", `/api/tasks/${parent.attempts[0].id}/messages`, { token: fresh.token })).json.data;
    expect(winnerMessages).toHaveLength(1);
    expect(winnerMessages[0].content).toContain("Name it parseLine.");
    expect((await call("GET", `/api/tasks/${parent.id}/messages`, { token: fresh.token })).json.data).toEqual([]);
    expect(
      await act(seeded, on(seeded, { kind: "pull_closed", number: pull!.number, merged: true, headRef: pull!.head, sender: sender("alice") })),
    ).toMatchObject({
      outcome: "accepted",
    });
    const detail = (await call("GET", `/api/tasks/${parent.id}`, { token: fresh.token })).json;
    expect(detail.status).toBe("completed");
    expect(detail.attempts.map((a: { status: string }) => a.status)).toEqual(["completed", "completed"]);
    expect(await forgeBranches(fresh.fullName)).toEqual([`factory/task/${parent.attempts[0].key}`, "main"]);
  });
});
