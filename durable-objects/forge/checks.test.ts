/**
 * CI reaches the task and a pull request is ready only when green (ISSUE-33), against real
 * Postgres and the local forge: the task's branch and draft pull request are on the forge,
 * and what the platform does to them is read back from it. The check runs a commit has come
 * from the test's reader (the forge's check runs come from its CI, which needs a container
 * engine); the branch's head is the forge's.
 */
import { exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { guildRepositories, tasks } from "../../core/db/schema";
import type { CheckRun, ChecksReader } from "../../core/github/checks-api";
import type { ChecksEvent } from "../../core/github/webhook-event";
import { forgePush } from "../../test/workerd/forge-branch";
import {
  act,
  complete,
  completedRun,
  delivery,
  getTask,
  messagesOf,
  pullOf,
  queuedAgain,
  type Seeded,
  seedForgeRepository,
  seedForgeTask,
  ZERO,
} from "../../test/workerd/forge-task";
import { forgeAdmin } from "../../test/workerd/github";
import { call, seedGuild } from "../../test/workerd/seed";
import { testEnv, withDb } from "../../test/workerd/tasks";
import { actOnChecks } from "./checks";

let nextRunId = 1;

/** A completed check run as GitHub lists it. */
const checkRun = (name: string, conclusion: string | null, output: Partial<CheckRun["output"]> = {}): CheckRun => ({
  id: nextRunId++,
  name,
  status: conclusion === null ? "in_progress" : "completed",
  conclusion,
  html_url: `https://forge.test/runs/${name}`,
  output: { title: null, summary: null, text: null, ...output },
});

/** The forge's branch head, and the check runs the test says the commit has. */
function reader(seeded: Seeded, runsOf: (sha: string) => CheckRun[]): ChecksReader {
  return {
    branchHead: async (fullName, branch) =>
      ((await forgeAdmin("GET", `/repos/${fullName}`)).json.branches.find((b: { name: string }) => b.name === branch)?.sha as string | undefined) ?? null,
    listCheckRuns: async (fullName, sha) => (fullName.toLowerCase() === seeded.fullName.toLowerCase() ? runsOf(sha) : []),
  };
}

/**
 * The task's event stream, open once its first event (the status after the replay) came:
 * `next(name)` is the data of the next event of that name (within 10 s).
 */
async function openTaskEvents(seeded: Seeded) {
  const response = await (exports as unknown as { default: Fetcher }).default.fetch(`http://api.test/api/tasks/${seeded.task.id}/events`, {
    headers: { authorization: `Bearer ${seeded.token}`, accept: "text/event-stream" },
  });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const next = async (name: string): Promise<unknown> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const match = new RegExp(`event: ${name.replace(".", "\\.")}\ndata: (.*)\n\n`).exec(buffer);
      if (match) {
        buffer = buffer.slice(match.index + match[0].length);
        return JSON.parse(match[1]!);
      }
      if (Date.now() > deadline) throw new Error(`no ${name} event: ${buffer.slice(-500)}`);
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended before ${name}`);
      buffer += value;
    }
  };
  await next("status");
  return { next, close: () => reader.cancel() };
}

describe("CI reaches the task (ISSUE-33)", { timeout: 60_000 }, () => {
  it("ISSUE-33: a failing check becomes one message with the failing output's tail; the same commit reported again sends no second", async () => {
    const seeded = await seedForgeTask("Checks failing");
    const output = `${"compiling…\n".repeat(800)}FAIL test/math.test.ts > adds\nAssertionError: expected 5 to be 4\n`;
    const failing = () => [checkRun("unit tests", "failure", { title: "1 test failed", summary: "math.test.ts", text: output }), checkRun("lint", "success")];
    const first = await withDb((db) => act(seeded, db, reader(seeded, failing), seeded.head, "check_run"));
    expect(first).toEqual({ outcome: "accepted", detail: expect.stringContaining("the failure sent to the agent") });
    const again = await withDb((db) => act(seeded, db, reader(seeded, failing), seeded.head, "check_suite"));
    expect(again.outcome).toBe("accepted");
    expect(again.detail).not.toContain("failure sent");
    const sent = await messagesOf(seeded);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.content).toMatch(new RegExp(`^CI failed on ${seeded.head.slice(0, 7)}: fix it and push`));
    expect(sent[0]!.content).toContain("## unit tests: failure");
    expect(sent[0]!.content).toContain("AssertionError: expected 5 to be 4");
    expect(sent[0]!.content).not.toContain("## lint");
    expect(sent[0]!.content.length).toBeLessThan(output.length);
    // The message queued the task again, and its page shows the checks.
    expect(await queuedAgain(seeded)).toBe(true);
    const task = await getTask(seeded);
    expect(task.checks).toEqual({
      head_sha: seeded.head,
      state: "failing",
      runs: [
        { name: "lint", status: "completed", conclusion: "success", url: "https://forge.test/runs/lint" },
        { name: "unit tests", status: "completed", conclusion: "failure", url: "https://forge.test/runs/unit tests" },
      ],
      updated_at: expect.any(String),
    });
  });

  it("ISSUE-33: passing checks are recorded and shown live on the task's stream, no message; the repository is known to have checks", async () => {
    const seeded = await seedForgeTask("Checks passing");
    const stream = await openTaskEvents(seeded);
    const result = await withDb((db) =>
      act(
        seeded,
        db,
        reader(seeded, () => [checkRun("build", "success"), checkRun("docs", "skipped")]),
      ),
    );
    expect(result.outcome).toBe("accepted");
    expect(await stream.next("task.checks")).toMatchObject({ head_sha: seeded.head, state: "passing", awaiting_checks: false });
    const task = await getTask(seeded);
    expect([task.status, task.checks.state, task.awaiting_checks]).toEqual(["in_review", "passing", false]);
    expect(await messagesOf(seeded)).toEqual([]);
    // Not awaiting its checks: the pull request stays as it was.
    expect((await pullOf(seeded)).draft).toBe(true);
    const [repository] = await withDb((db) => db.select().from(guildRepositories).where(eq(guildRepositories.id, seeded.repositoryId)));
    expect(repository!.checksSeenAt).toBeInstanceOf(Date);
  });

  it("ISSUE-33: a result for a commit that is no longer the branch's head is ignored", async () => {
    const seeded = await seedForgeTask("Checks old head");
    const newer = await forgePush(seeded.fullName, seeded.forgeToken, seeded.task.branch, seeded.head, seeded.head, "a fix");
    const result = await withDb((db) =>
      act(
        seeded,
        db,
        reader(seeded, () => [checkRun("test", "failure")]),
        seeded.head,
      ),
    );
    expect(result).toEqual({ outcome: "ignored", detail: `${seeded.task.key}: ${seeded.head.slice(0, 7)} is not the branch's head` });
    expect(newer).not.toBe(seeded.head);
    expect((await getTask(seeded)).checks).toBeNull();
    expect(await messagesOf(seeded)).toEqual([]);
  });

  it("ISSUE-33: a branch of no task of the organisation is ignored", async () => {
    const seeded = await seedForgeTask("Checks no task");
    const other = delivery(seeded, seeded.head);
    (other.event as ChecksEvent).headBranch = "feature/elsewhere";
    const result = await withDb((db) => actOnChecks({ env: testEnv, db, now: () => Date.now(), checks: async () => reader(seeded, () => []) }, other));
    expect(result).toEqual({ outcome: "ignored", detail: "no task's branch: feature/elsewhere" });
  });
});

describe("ready only when green (ISSUE-33)", { timeout: 60_000 }, () => {
  it("ISSUE-33: completing with checks pending waits for them; their passing marks the pull request ready with the summary and the task in review", async () => {
    const seeded = await seedForgeTask("Green pending");
    await completedRun(seeded, "Fixed the build: the adder adds.");
    const pending = () => [checkRun("unit tests", null), checkRun("lint", "success")];
    expect(await withDb((db) => complete(seeded, db, reader(seeded, pending)))).toBe(false);
    const waiting = await getTask(seeded);
    expect([waiting.status, waiting.awaiting_checks, waiting.checks.state]).toEqual(["waiting", true, "pending"]);
    expect((await pullOf(seeded)).draft).toBe(true);

    const result = await withDb((db) =>
      act(
        seeded,
        db,
        reader(seeded, () => [checkRun("unit tests", "success"), checkRun("lint", "success")]),
      ),
    );
    expect(result.detail).toContain(`pull request #${seeded.pull.number} marked ready`);
    const ready = await getTask(seeded);
    expect([ready.status, ready.awaiting_checks, ready.checks.state]).toEqual(["in_review", false, "passing"]);
    const pull = await pullOf(seeded);
    expect(pull.draft).toBe(false);
    expect(JSON.stringify(pull.comments)).toContain("Fixed the build: the adder adds.");
    expect(await messagesOf(seeded)).toEqual([]);
  });

  it("ISSUE-33: checks failing while the task waits for them queue it again with the failure, and the pull request stays a draft", async () => {
    const seeded = await seedForgeTask("Green failing");
    expect(
      await withDb((db) =>
        complete(
          seeded,
          db,
          reader(seeded, () => [checkRun("unit tests", null)]),
        ),
      ),
    ).toBe(false);
    await withDb((db) =>
      act(
        seeded,
        db,
        reader(seeded, () => [checkRun("unit tests", "failure", { text: "Error: boom" })]),
      ),
    );
    expect(await queuedAgain(seeded)).toBe(true);
    const task = await getTask(seeded);
    expect([task.awaiting_checks, task.checks.state]).toEqual([false, "failing"]);
    const sent = await messagesOf(seeded);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.content).toContain("Error: boom");
    expect((await pullOf(seeded)).draft).toBe(true);
  });

  it("ISSUE-33: completing with checks failing sends the failure at once and is not ready", async () => {
    const seeded = await seedForgeTask("Green red at once");
    expect(
      await withDb((db) =>
        complete(
          seeded,
          db,
          reader(seeded, () => [checkRun("unit tests", "timed_out", { title: "Timed out" })]),
        ),
      ),
    ).toBe(false);
    expect(await queuedAgain(seeded)).toBe(true);
    expect((await getTask(seeded)).awaiting_checks).toBe(false);
    expect((await messagesOf(seeded))[0]!.content).toContain("## unit tests: timed_out");
  });

  it("ISSUE-33: completing with checks passing is ready at once", async () => {
    const seeded = await seedForgeTask("Green at once");
    expect(
      await withDb((db) =>
        complete(
          seeded,
          db,
          reader(seeded, () => [checkRun("unit tests", "success")]),
        ),
      ),
    ).toBe(true);
    const task = await getTask(seeded);
    expect([task.status, task.awaiting_checks, task.checks.state]).toEqual(["in_review", false, "passing"]);
  });

  it("ISSUE-33: with runs.readyRequiresChecks off, or a repository without checks, the pull request is ready at once", async () => {
    const off = await seedForgeTask("Green off");
    const patched = await call("PATCH", "/api/organisation/task-settings", { token: off.token, body: { "runs.readyRequiresChecks": false } });
    expect([patched.status, patched.json["runs.readyRequiresChecks"]]).toEqual([200, false]);
    expect(
      await withDb((db) =>
        complete(
          off,
          db,
          reader(off, () => [checkRun("unit tests", null)]),
        ),
      ),
    ).toBe(true);
    expect((await getTask(off)).status).toBe("in_review");

    const none = await seedForgeTask("Green none");
    expect(
      await withDb((db) =>
        complete(
          none,
          db,
          reader(none, () => []),
        ),
      ),
    ).toBe(true);
    const task = await getTask(none);
    expect([task.status, task.awaiting_checks, task.checks]).toEqual(["in_review", false, null]);
    const [repository] = await withDb((db) => db.select().from(guildRepositories).where(eq(guildRepositories.id, none.repositoryId)));
    expect(repository!.checksSeenAt).toBeNull();
  });

  it("ISSUE-33: runs.readyRequiresChecks is on by default and takes only a boolean", async () => {
    const { token } = await seedGuild("Green setting");
    expect((await call("GET", "/api/organisation/task-settings", { token })).json["runs.readyRequiresChecks"]).toBe(true);
    const bad = await call("PATCH", "/api/organisation/task-settings", { token, body: { "runs.readyRequiresChecks": "no" } });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details.fields.map((f: { field: string }) => f.field)).toContain("runs.readyRequiresChecks");
  });
});

describe("best of N judged by the checks (ISSUE-33)", { timeout: 60_000 }, () => {
  it("ISSUE-33: an attempt is not told of its failing checks; its passing checks concluding let the parent open the pull request from it", async () => {
    const repo = await seedForgeRepository("Checks best of two");
    const filed = await call("POST", `/api/guilds/${repo.guildId}/tasks`, {
      token: repo.token,
      body: { title: "Fix the parser", agent_id: repo.agentId, repository_id: repo.repositoryId, attempts: 2, base_branch: "main" },
    });
    expect(filed.status, JSON.stringify(filed.json)).toBe(201);
    const parent = (await call("GET", `/api/tasks/${filed.json.id}`, { token: repo.token })).json;
    const [first, second] = parent.attempts as Array<{ id: string; key: string }>;
    const heads: Record<string, string> = {};
    for (const [attempt, file] of [
      [first!, "one.txt"],
      [second!, "two.txt"],
    ] as const) {
      const branch = `factory/task/${attempt.key}`;
      heads[attempt.id] = await forgePush(repo.fullName, repo.forgeToken, branch, ZERO, repo.main, `${attempt.key}'s work`, { [file]: "fixed\n" });
    }
    const seededOf = (attempt: { id: string; key: string }, status: string): Seeded =>
      ({
        ...repo,
        task: { id: attempt.id, key: attempt.key, branch: `factory/task/${attempt.key}`, queued_at: parent.queued_at },
        head: heads[attempt.id]!,
        pull: { number: 0, url: "", nodeId: "" },
        status,
      }) as unknown as Seeded;
    const attemptRows = (attempt: { id: string }, status: string) =>
      withDb(async (db) => {
        await db
          .update(tasks)
          .set({ status, ...(status === "completed" ? { closedAt: new Date() } : {}) })
          .where(eq(tasks.id, attempt.id));
      });

    // The second attempt still runs when its checks fail: it is not told, its checks are recorded.
    await attemptRows(second!, "running");
    const failed = await withDb((db) =>
      act(
        seededOf(second!, "running"),
        db,
        reader(seededOf(second!, "running"), () => [checkRun("ci", "failure", { text: "boom" })]),
      ),
    );
    expect(failed.detail).not.toContain("failure sent");
    expect((await call("GET", `/api/tasks/${second!.id}/messages`, { token: repo.token })).json.data).toEqual([]);
    expect((await call("GET", `/api/tasks/${second!.id}`, { token: repo.token })).json.checks.state).toBe("failing");

    // Both complete, the first with its checks still running; their passing is what the parent's verdict waited for.
    await attemptRows(first!, "completed");
    await attemptRows(second!, "completed");
    const passed = await withDb((db) =>
      act(
        seededOf(first!, "completed"),
        db,
        reader(seededOf(first!, "completed"), () => [checkRun("ci", "success")]),
      ),
    );
    expect(passed.outcome).toBe("accepted");
    const pulls = (await forgeAdmin("GET", `/repos/${repo.fullName}/pulls`)).json.pulls as Array<{ head: string; draft: boolean }>;
    expect(pulls.map((p) => [p.head, p.draft])).toEqual([[`factory/task/${first!.key}`, false]]);
    expect((await call("GET", `/api/tasks/${filed.json.id}`, { token: repo.token })).json.status).toBe("in_review");
  });
});
