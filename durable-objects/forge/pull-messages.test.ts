import { beforeAll, describe, expect, it, vi } from "vitest";
import { moveTask } from "../../core/db/task-rows";
import { setPullRequest } from "../../core/db/task-run";
import type { TaskStatus } from "../../core/tasks/outcome";
import { act, type IssueRepository, on, seedIssueRepository, sender, taskMessages } from "../../test/workerd/forge-acts";
import { call } from "../../test/workerd/seed";
import { testEnv, withDb } from "../../test/workerd/tasks";

/** Reviews reach the task (issue 33): a writer's review or comment on a task's pull request becomes a task message. */

describe("reviews and comments on a task's pull request", () => {
  let seeded: IssueRepository;
  let pullNumber = 40;
  beforeAll(async () => {
    seeded = await seedIssueRepository("Pull messages", "iss33-pulls");
  });

  /** A task filed through the API whose draft pull request is open, in `status`. */
  async function taskWithPull(status: TaskStatus) {
    const filed = await call("POST", `/api/guilds/${seeded.guildId}/tasks`, {
      token: seeded.token,
      body: { title: "Add the feature", agent_id: seeded.agentId, repository_id: seeded.repositoryId },
    });
    expect(filed.status).toBe(201);
    const number = ++pullNumber;
    const url = `${testEnv.GITHUB_WEB_URL}/${seeded.fullName}/pull/${number}`;
    await withDb(async (db) => {
      await setPullRequest(db, filed.json.id, number, url);
      if (status !== "queued") expect(await moveTask(db, filed.json.id, ["queued"], status)).not.toBeNull();
    });
    const task = (await call("GET", `/api/tasks/${filed.json.id}`, { token: seeded.token })).json;
    expect(task).toMatchObject({ status, pull_request: { number, url } });
    return task as { id: string; key: string; branch: string; pull_request: { number: number; url: string } };
  }

  const review = (number: number, login: string, state: string, body: string) =>
    on(seeded, { kind: "review", number, state, body, url: `https://forge.test/pull/${number}#pullrequestreview-1`, headRef: "x", sender: sender(login) });

  it("ISSUE-33: a review and a review comment become messages naming the reviewer, the file and the line; an in_review task is queued again on the same pull request", async () => {
    const task = await taskWithPull("in_review");
    const number = task.pull_request.number;
    seeded.started.length = 0;
    const reviewed = await act(seeded, review(number, "alice", "changes_requested", "Split the parser out."));
    expect(reviewed).toEqual({ outcome: "accepted", detail: `message to ${task.key}` });
    // Queued again: the queue was woken and tried it (the inbox does not wait for its plan; the
    // start is refused here, so the task is queued again once the plan ends), with the same
    // branch and pull request for its next pushes.
    await vi.waitFor(() => expect(seeded.started).toContain(task.id), { timeout: 10_000, interval: 50 });
    await vi.waitFor(
      async () =>
        expect((await call("GET", `/api/tasks/${task.id}`, { token: seeded.token })).json).toMatchObject({
          status: "queued",
          branch: task.branch,
          pull_request: task.pull_request,
          closed_at: null,
        }),
      { timeout: 10_000, interval: 50 },
    );

    const line = on(seeded, {
      kind: "review_comment",
      number,
      body: "Off by one here.",
      url: `https://forge.test/pull/${number}#discussion_r9`,
      path: "src/app.ts",
      line: 12,
      headRef: "x",
      sender: sender("bob"),
    });
    expect(await act(seeded, line)).toEqual({ outcome: "accepted", detail: `message to ${task.key}` });
    const conversation = on(seeded, {
      kind: "issue_comment",
      number,
      pull: true,
      title: "Add the feature",
      issueBody: "",
      issueUrl: task.pull_request.url,
      commentId: 77,
      body: "And rebase please.",
      url: `${task.pull_request.url}#issuecomment-77`,
      sender: sender("alice"),
    });
    expect(await act(seeded, conversation)).toEqual({ outcome: "accepted", detail: `message to ${task.key}` });
    expect((await taskMessages(seeded, task.id)).map((m) => m.content)).toEqual([
      `@alice commented on the pull request:\n\nAnd rebase please.\n\n${task.pull_request.url}#issuecomment-77`,
      `@bob commented on src/app.ts line 12:\n\nOff by one here.\n\nhttps://forge.test/pull/${number}#discussion_r9`,
      `Review from @alice (changes requested) on the pull request:\n\nSplit the parser out.\n\nhttps://forge.test/pull/${number}#pullrequestreview-1`,
    ]);
    expect((await call("GET", `/api/tasks/${task.id}`, { token: seeded.token })).json.pull_request).toEqual(task.pull_request);
  });

  it("ISSUE-33: a review of a running task stays running, for its run to take at the next turn boundary", async () => {
    const task = await taskWithPull("running");
    expect(await act(seeded, review(task.pull_request.number, "bob", "commented", "Why a class here?"))).toEqual({
      outcome: "accepted",
      detail: `message to ${task.key}`,
    });
    expect((await call("GET", `/api/tasks/${task.id}`, { token: seeded.token })).json.status).toBe("running");
    expect(await taskMessages(seeded, task.id)).toHaveLength(1);
  });

  it("ISSUE-33: a reader's review, a bot's comment, an empty review and a pull request of no task reach no task, and say why", async () => {
    const task = await taskWithPull("in_review");
    const number = task.pull_request.number;
    expect(await act(seeded, review(number, "carol", "changes_requested", "Do it my way"))).toEqual({ outcome: "ignored", detail: "@carol has read access" });
    expect(await act(seeded, review(number, "ci-helper[bot]", "commented", "Coverage went down"))).toEqual({
      outcome: "ignored",
      detail: "@ci-helper[bot] is a bot",
    });
    expect(await act(seeded, review(number, "alice", "commented", " "))).toEqual({
      outcome: "ignored",
      detail: `a review of pull request #${number} without a body or a verdict`,
    });
    expect(await act(seeded, review(999, "alice", "approved", ""))).toEqual({ outcome: "ignored", detail: "no task for pull request #999" });
    expect(await taskMessages(seeded, task.id)).toEqual([]);
    expect((await call("GET", `/api/tasks/${task.id}`, { token: seeded.token })).json.status).toBe("in_review");
  });

  it("ISSUE-33: a task's pull request merged completes the task; closed unmerged leaves it as it is", async () => {
    const task = await taskWithPull("in_review");
    const closed = (merged: boolean) =>
      on(seeded, { kind: "pull_closed", number: task.pull_request.number, merged, headRef: task.branch, sender: sender("bob") });
    expect(await act(seeded, closed(false))).toEqual({
      outcome: "ignored",
      detail: `pull request #${task.pull_request.number} closed without merging; ${task.key} left as it is`,
    });
    expect((await call("GET", `/api/tasks/${task.id}`, { token: seeded.token })).json.status).toBe("in_review");
    expect(await act(seeded, closed(true))).toEqual({ outcome: "accepted", detail: `${task.key} completed: merged` });
    const done = (await call("GET", `/api/tasks/${task.id}`, { token: seeded.token })).json;
    expect(done).toMatchObject({ status: "completed", closed_at: expect.any(String) });
    expect(await act(seeded, closed(true))).toEqual({ outcome: "ignored", detail: `${task.key} was completed already` });
  });
});
