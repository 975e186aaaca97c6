import { describe, expect, it } from "vitest";
import { script, transcript } from "./agents";
import { containerStack } from "./container-stack";
import { boxesWithVariable, until } from "./sandbox-box";
import { docker, shell, type Task, taskSetting, toolOutputs } from "./task-setting";

/**
 * Tasks of coding agents on real containers, the scripted mock model and the local forge:
 * the queue starts task runs, each in its own box; the box's git reaches the forge only
 * through the gateway; pull requests open and become ready; runs continue from the summary,
 * the WIP snapshot and the volume.
 */
const boxes = containerStack({});
const { call } = boxes;
const { forge, settings, codingSetup, fileTask, readTask, taskRuns, taskReaches, runHasRows } = taskSetting(boxes);

describe("tasks on real containers, the gateway and the local forge", () => {
  it("TASK-005 / TASK-014 / TASK-016 / TASK-017 / TASK-018 / TASK-022 / TASK-023 / TASK-024: a task commits and pushes through the gateway; other refs and the base are refused in git's words and in the transcript; no installation token enters the box; the draft pull request becomes ready with the summary", async () => {
    await settings({});
    const setup = await codingSetup();
    const { agent, fullName } = setup;
    await script(
      agent.model,
      [
        {
          tool_calls: [
            shell("pwd; echo hello > hello.txt && git add hello.txt && git commit -qm 'Add hello' && git rev-parse --abbrev-ref HEAD"),
            shell("git push origin HEAD:main 2>&1; echo exit=$?"),
            shell("git push origin HEAD:refs/heads/elsewhere 2>&1; echo exit=$?"),
            shell("env; cat /run/guilds/git-tokens.json; ps axww -o args; git config --get remote.origin.url"),
          ],
        },
        { content: "Committed hello.txt." },
        { tool_calls: [{ name: "complete_task", arguments: { summary: "Added hello.txt at the root." } }] },
        { content: "Done." },
      ],
      boxes.target,
    );
    const task = await fileTask(setup, "Say hello");
    const branch = `factory/task/${task.key}`;

    // The first turn: committed, refused twice, pushed; the draft pull request opens.
    const waiting = await until("the first turn's push and draft pull request", async () => (await readTask(task.id)).pull_request !== null, 240_000).then(() =>
      readTask(task.id),
    );
    expect(waiting.status).toBe("running");
    const [run] = await taskRuns(task.id);
    const rows = await runHasRows(run!.run_id, (rs) => rs.some((r) => r.metadata?.source === "git_refusal"));
    const outputs = toolOutputs(rows);
    expect(outputs[0]).toContain(`/data/workspace\n${branch}`);
    expect(outputs[1]).toMatch(/! \[remote rejected\] +HEAD -> main \(.+\)/);
    expect(outputs[1]).toContain("exit=1");
    expect(outputs[2]).toMatch(/! \[remote rejected\] +HEAD -> elsewhere \(.+\)/);
    expect(outputs[3]).toContain(`/tasks/${task.id}/${fullName}.git`);
    const refusals = rows.filter((r) => r.metadata?.source === "git_refusal").map((r) => r.metadata.ref);
    expect(refusals).toEqual(expect.arrayContaining(["refs/heads/main", "refs/heads/elsewhere"]));

    // TASK-014: the installation tokens the forge minted were never inside the box.
    const minted = ((await forge("GET", "/tokens")).json.tokens as Array<{ token: string }>).map((t) => t.token);
    expect(minted.length).toBeGreaterThan(0);
    const [box] = boxesWithVariable(agent.secretName);
    expect(box, "the task's box runs").toBeDefined();
    const inside = [
      docker("inspect", "--format", "{{range .Config.Env}}{{println .}}{{end}}", box!),
      docker("exec", box!, "sh", "-c", "cat /run/guilds/git-tokens.json; ps axww -o args; env; cat /data/workspace/.git/config"),
      JSON.stringify(rows),
    ].join("\n");
    for (const token of minted) expect(inside).not.toContain(token);

    // TASK-005 / TASK-018: the branch is on the forge ahead of base; main and other refs are not; the pull request is a draft.
    const repo = (await forge("GET", `/repos/${fullName}`)).json as { refs: Array<{ ref: string; sha: string }> };
    expect(repo.refs.map((r) => r.ref)).toEqual(expect.arrayContaining(["refs/heads/main", `refs/heads/${branch}`]));
    expect(repo.refs.map((r) => r.ref)).not.toContain("refs/heads/elsewhere");
    const mainLog = (await forge("GET", `/repos/${fullName}/commits?ref=main&limit=5`)).json.commits as Array<{ message: string }>;
    expect(mainLog.map((c) => c.message)).not.toContain(expect.stringContaining("Add hello"));
    let pulls = (await forge("GET", `/repos/${fullName}/pulls`)).json.pulls as Array<{
      number: number;
      draft: boolean;
      head: string;
      base: string;
      comments: Array<{ body: string }>;
    }>;
    expect(pulls).toEqual([expect.objectContaining({ number: waiting.pull_request!.number, draft: true, head: branch, base: "main" })]);

    // A message reaches the waiting run at its next turn boundary: the agent completes the task.
    expect((await call("POST", `/api/tasks/${task.id}/messages`, { content: "Looks good, finish up." })).status).toBe(202);
    const done = await taskReaches(task.id, ["in_review"]);
    expect(done.pull_request).toEqual(waiting.pull_request);
    const runs = await taskRuns(task.id);
    expect(runs.map((r) => r.outcome)).toEqual(["completed"]);
    // The task is in review once its status settles; the pull request turns ready right after,
    // its summary already posted (a reviewer never sees it ready without the summary).
    await until(
      "the pull request to be ready for review",
      async () => {
        pulls = (await forge("GET", `/repos/${fullName}/pulls`)).json.pulls;
        return pulls[0]?.draft === false;
      },
      60_000,
    );
    expect(pulls[0]!.comments.map((c) => c.body)).toEqual([expect.stringContaining("Added hello.txt at the root.")]);
    // TASK-023: the box is gone once the run ended.
    await until("the task's box to be removed", () => boxesWithVariable(agent.secretName).length === 0, 60_000);
  }, 600_000);

  it("TASK-013 / TASK-019 / TASK-020 / TASK-021 / TASK-025 / TASK-033 / TASK-034 / TASK-035 / TASK-036: a message mid-run arrives in the same run; an idle run is released; the next message starts a run that continues from the summary and the WIP snapshot; what the volume planted runs nothing", async () => {
    await settings({ "runs.keepAliveSeconds": 6 });
    const setup = await codingSetup("Keeper");
    const { agent } = setup;
    await script(
      agent.model,
      [
        {
          tool_calls: [
            shell(
              [
                "echo draft > notes.txt",
                "printf '#!/bin/sh\\ntouch /tmp/hook-ran\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout",
                "git config core.fsmonitor 'touch /tmp/fsmonitor-ran; false'",
                "git config core.sshCommand 'touch /tmp/ssh-ran'",
                "echo planted",
              ].join(" && "),
            ),
          ],
          delay_ms: 2_000,
        },
        { content: "Waiting for your answer." },
        { content: "Noted: blue." },
        {
          tool_calls: [
            shell("cat notes.txt; ls /tmp/hook-ran /tmp/fsmonitor-ran /tmp/ssh-ran 2>&1; git config --get core.fsmonitor; git status --porcelain; echo end"),
          ],
        },
        { content: "Still here." },
      ],
      boxes.target,
    );
    const task = await fileTask(setup, "Keep notes");
    // The first turn's model call is slow: the message is queued while the run works, and comes at the turn's end.
    const [first] = await until("the first run to start", async () => (await taskRuns(task.id)).length > 0, 240_000).then(() => taskRuns(task.id));
    await runHasRows(first!.run_id, (rs) => rs.some((r) => r.role === "tool"));
    expect((await call("POST", `/api/tasks/${task.id}/messages`, { content: "The colour is blue." })).status).toBe(202);
    const waiting = await taskReaches(task.id, ["waiting"]);
    expect(waiting.status).toBe("waiting");
    let runs = await taskRuns(task.id);
    expect(runs.map((r) => r.outcome)).toEqual(["end_turn"]);
    const firstRows = await transcript(first!.run_id, boxes.target);
    expect(firstRows.filter((r) => r.role === "user").map((r) => String(r.payload.content))).toEqual([expect.stringContaining("Task "), "The colour is blue."]);
    const messages = (await call("GET", `/api/tasks/${task.id}/messages`)).json.data as Array<{ delivered_run_id: string | null }>;
    expect(messages.map((m) => m.delivered_run_id)).toEqual([first!.run_id]);

    // The next message starts a second run: the summary, the WIP file, and none of the planted commands.
    expect((await call("POST", `/api/tasks/${task.id}/messages`, { content: "Check the notes." })).status).toBe(202);
    await taskReaches(task.id, ["waiting"], 300_000).then(async () => {
      runs = await taskRuns(task.id);
      expect(runs.length).toBe(2);
    });
    const second = runs[1]!;
    const rows = await transcript(second.run_id, boxes.target);
    const prompt = String(rows.find((r) => r.role === "user")?.payload.content);
    expect(prompt).toContain("This task ran before");
    expect(prompt).toContain("The colour is blue.");
    expect(prompt).toContain("Noted: blue.");
    const [check] = toolOutputs(rows);
    expect(check).toContain("draft\n");
    expect(check).toContain("cannot access '/tmp/hook-ran': No such file or directory");
    expect(check).toContain("cannot access '/tmp/fsmonitor-ran': No such file or directory");
    expect(check).toContain("cannot access '/tmp/ssh-ran': No such file or directory");
    expect(check).toContain("?? notes.txt\nend");
    expect(runs.map((r) => r.outcome)).toEqual(["end_turn", "end_turn"]);
  }, 900_000);

  it("TASK-036 / TASK-010: a repository's next task starts from the seed its first task's run left: fetched into, not cloned, with its own branch alone", async () => {
    await settings({ "runs.keepAliveSeconds": 2 });
    const setup = await codingSetup("Seeder");
    const look = shell("git for-each-ref --format='%(refname)'; git log --format=%s -1; git config --get remote.origin.url");
    await script(setup.agent.model, [{ tool_calls: [look] }, { content: "Looked." }, { tool_calls: [look] }, { content: "Looked again." }], boxes.target);
    const first = await fileTask(setup, "Look around");
    await taskReaches(first.id, ["waiting"], 300_000);
    const second = await fileTask(setup, "Look again");
    await taskReaches(second.id, ["waiting"], 300_000);

    const logged = (operation: string, taskId: string) =>
      boxes.output.filter((line) => line.includes(`"operation":"${operation}"`) && line.includes(taskId)).map((line) => line.slice(line.indexOf("{")));
    // The first task's run cloned, and its volume became the repository's seed before its first turn.
    expect(logged("task.prepared", first.id)).toEqual([expect.stringContaining('"cloned":true')]);
    expect(logged("task.seed", first.id)).toEqual([expect.stringContaining('"reason":"saved"')]);
    // The second task's run started from it: fetched into, not cloned, and no new seed (it is fresh).
    expect(logged("task.prepared", second.id)).toEqual([expect.stringContaining('"seeded":true')]);
    expect(logged("task.seed", second.id)).toEqual([expect.stringContaining('"reason":"fresh"')]);
    const [run] = await taskRuns(second.id);
    const [refs] = toolOutputs(await transcript(run!.run_id, boxes.target));
    const lines = refs!.trim().split("\n");
    expect(lines.slice(0, 2)).toEqual([`refs/heads/factory/task/${second.key}`, "refs/remotes/origin/main"]);
    expect(refs).toContain(`/tasks/${second.id}/${setup.fullName}.git\n`);
    expect(refs).not.toContain(first.key);
    expect(refs).not.toContain(first.id);
  }, 900_000);

  it("TASK-027: a provider's 429 with a reset makes the task rate_limited; it resumes by itself after the reset and continues", async () => {
    await settings({ "runs.keepAliveSeconds": 2 });
    const setup = await codingSetup("Limited");
    await script(setup.agent.model, [{ status: 429, headers: { "retry-after": "4" } }, { content: "Back after the limit." }], boxes.target);
    const task = await fileTask(setup, "Wait out the limit");
    const limited = await taskReaches(task.id, ["rate_limited"]);
    expect(limited.status).toBe("rate_limited");
    await taskReaches(task.id, ["waiting"], 300_000);
    const runs = await taskRuns(task.id);
    expect(runs.map((r) => r.outcome)).toEqual(["rate_limited", "end_turn"]);
    const rows = await transcript(runs[1]!.run_id, boxes.target);
    expect(rows.at(-1)?.payload.content).toBe("Back after the limit.");
  }, 600_000);

  it("TASK-029: a box killed mid-run ends it sandbox_lost; the task is retried with a growing delay and fails after maxAutoResumes", async () => {
    await settings({ "runs.maxAutoResumes": 1, "runs.retryBaseSeconds": 1 });
    const setup = await codingSetup("Fragile");
    const slow = { tool_calls: [shell("echo started; sleep 120")] };
    await script(setup.agent.model, [slow, { content: "unreached" }, slow, { content: "unreached" }], boxes.target);
    const task = await fileTask(setup, "Survive a crash");
    for (let attempt = 1; attempt <= 2; attempt++) {
      await until(
        `run ${attempt} to run its command`,
        async () => {
          const runs = await taskRuns(task.id);
          const run = runs[attempt - 1];
          return Boolean(
            run &&
              !run.outcome &&
              boxesWithVariable(setup.agent.secretName).length > 0 &&
              (await transcript(run.run_id, boxes.target)).some((r) => r.role === "assistant"),
          );
        },
        240_000,
      );
      for (const box of boxesWithVariable(setup.agent.secretName)) docker("kill", box);
      if (attempt === 1) {
        // "running" is also the status before the loss is noticed: wait for the retry itself.
        let requeued = await readTask(task.id);
        await until("the task to be retried once", async () => (requeued = await readTask(task.id)).auto_resumes > 0, 240_000);
        expect(requeued.auto_resumes).toBe(1);
        expect(["queued", "running"]).toContain(requeued.status);
      }
    }
    const failed = await taskReaches(task.id, ["failed"]);
    expect(failed.auto_resumes).toBe(1);
    expect((await taskRuns(task.id)).map((r) => r.outcome)).toEqual(["sandbox_lost", "sandbox_lost"]);
  }, 600_000);

  it("TASK-007 / TASK-008 / TASK-002: six tasks filed at once run at most four at a time, oldest first; two tasks of one agent run side by side", async () => {
    await settings({ "runs.keepAliveSeconds": 1 });
    const first = await codingSetup("Crowd");
    const second = await codingSetup("Crowd", first.agent, "other");
    const reply = { content: "done", delay_ms: 4_000 };
    await script(
      first.agent.model,
      Array.from({ length: 6 }, () => reply),
      boxes.target,
    );
    const tasks: Task[] = [];
    for (let i = 0; i < 6; i++) tasks.push(await fileTask(i % 2 ? second : first, `Crowd ${i}`));
    await Promise.all(tasks.map((t) => taskReaches(t.id, ["waiting"], 600_000)));
    const runs = (await Promise.all(tasks.map(async (t) => ({ task: t.id, run: (await taskRuns(t.id))[0]! })))).map(({ task, run }) => ({
      task,
      start: Date.parse(run.created_at),
      end: Date.parse(run.ended_at!),
    }));
    // At no moment more than four runs were active.
    for (const { start } of runs) expect(runs.filter((r) => r.start <= start && r.end > start).length).toBeLessThanOrEqual(4);
    // The first four filed started before the last two.
    const started = [...runs].sort((a, b) => a.start - b.start).map((r) => r.task);
    expect(new Set(started.slice(0, 4))).toEqual(new Set(tasks.slice(0, 4).map((t) => t.id)));
    // Two tasks of the one agent overlapped.
    const overlapping = runs.filter((a) => runs.some((b) => a !== b && b.start < a.end && a.start < b.end));
    expect(overlapping.length).toBeGreaterThanOrEqual(2);
  }, 900_000);
});
