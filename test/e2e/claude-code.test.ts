import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { script, transcript } from "./agents";
import { agentWithSecret, containerStack } from "./container-stack";
import { boxesWithVariable } from "./sandbox-box";
import { docker, promptText, taskSetting } from "./task-setting";

/**
 * Claude Code as a task's harness, the real binary in a real box, through the platform's
 * model gateway to the scripted mock model (its Chat Completions: the gateway translates),
 * with the local forge behind the git gateway. Every model call is read as the mock model
 * received it; the transcript is read from the API as the console reads it.
 */
const providerKey = `sk-provider-${crypto.randomUUID()}`;
const boxes = containerStack({ MODEL_API_KEY: providerKey });
const { call } = boxes;
const { settings, codingSetup, fileTask, readTask, taskRuns, taskReaches, forge, modelRequests, modelRequest, requestCount } = taskSetting(boxes);

const bash = (command: string) => ({ name: "Bash", arguments: { command, description: "run a command" } });
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("a task worked by Claude Code", () => {
  it("TASK-011 / TASK-015 / TASK-016 / TASK-019 / TASK-033 / TASK-034: the tool call runs in the box and the draft PR opens; a message mid-turn arrives at the turn boundary; run 2 resumes the session with run 1's WIP; complete_task marks the PR ready; no key in the box", async () => {
    await settings({ "runs.keepAliveSeconds": 1 });
    const agent = await agentWithSecret(call, "Claude", { coding: true, task_harness: { kind: "claude-code", max_turns: 20 } });
    const setup = await codingSetup("Claude", agent);
    const model = agent.model;
    const marker = `mid-turn-${crypto.randomUUID().slice(0, 8)}`;
    await script(
      model,
      [
        // Run 1, turn 1: a commit in the box, then a slow answer while a message comes.
        { tool_calls: [bash("echo hello > hello.txt && git add hello.txt && git commit -qm 'Add hello' && echo committed")] },
        { content: "Committed hello.txt.", delay_ms: 8_000 },
        // Turn 2 (the message): uncommitted work stays in the workspace.
        { tool_calls: [bash("echo work in progress > wip.txt && echo kept")] },
        { content: "Started wip.txt." },
      ],
      boxes.target,
    );
    const task = await fileTask(setup, "Say hello with Claude");

    // The first reply is slow: the message arrives while the turn runs, and while it runs the box is read.
    await modelRequest(model, 1, 300_000);
    const sent = await call("POST", `/api/tasks/${task.id}/messages`, { content: `Also start wip.txt (${marker}).` });
    expect(sent.status, sent.text).toBe(202);
    const [box] = boxesWithVariable(agent.secretName);
    expect(box, "the task's box runs").toBeDefined();
    const credential = docker("exec", box!, "cat", "/run/guilds/model-credential");
    expect(credential.length).toBeGreaterThan(20);
    const environments = docker("exec", box!, "sh", "-c", "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'");
    const inspected = docker("inspect", box!);
    expect(docker("exec", box!, "sh", "-c", "pgrep -f 'claude' | head -1"), "Claude Code runs in the box").not.toBe("");
    for (const place of [environments, inspected]) {
      expect(place, "the run's credential is in no process's environment nor the box's spec").not.toContain(credential);
      expect(place).not.toContain(providerKey);
    }
    const everywhere = docker("exec", box!, "sh", "-c", `grep -rl -- '${providerKey}' /data /run /home /root /tmp 2>/dev/null; echo scanned`);
    expect(everywhere.trim(), "the provider key is nowhere in the box").toBe("scanned");

    // The message is delivered at the turn boundary: the same run's next turn resumes the session with it.
    const third = await modelRequest(model, 2, 300_000);
    expect(promptText(third)).toContain(marker);
    expect(promptText(third), "the resumed session holds the first turn").toContain("committed");
    await taskReaches(task.id, ["waiting"], 300_000);
    const [first] = await taskRuns(task.id);
    const firstRun = (await call("GET", `/api/runs/${first!.run_id}`)).json;
    expect(first!.outcome, JSON.stringify({ errors: firstRun.errors, report: first!.report })).toBe("end_turn");
    const harness = first!.report.harness as { kind: string; version: string; session_id: string; turns: number; resumed: boolean };
    expect(harness).toMatchObject({ kind: "claude-code", turns: 2, resumed: false });

    // TASK-016: the transcript is the platform's: the Bash call and its result, usage priced per call.
    const rows = await transcript(first!.run_id, boxes.target);
    const calls = rows.filter((r) => r.role === "assistant" && r.payload.tool_calls);
    expect(calls.map((r) => r.payload.tool_calls![0]!.function.name)).toEqual(["Bash", "Bash"]);
    const results = rows.filter((r) => r.role === "tool").map((r) => String(r.payload.content));
    expect(results[0]).toContain("committed");
    expect(rows.filter((r) => r.role === "assistant").every((r) => typeof r.metadata.cost_usd === "number" && r.metadata.usage)).toBe(true);
    const shown = JSON.stringify(rows);
    expect(shown).not.toContain(credential);
    expect(shown).not.toContain(providerKey);
    // The calls reached the provider with the platform's key, never the box's credential.
    const requests = await fetch(`${boxes.target.mockUrl}/__requests?model=${encodeURIComponent(model)}`).then(
      (r) => r.json() as Promise<{ requests: Array<{ authorization_sha256: string }> }>,
    );
    expect(new Set(requests.requests.map((r) => r.authorization_sha256))).toEqual(new Set([sha256(`Bearer ${providerKey}`)]));

    // The branch went through the git gateway and the draft pull request opened.
    const draft = await readTask(task.id);
    expect(draft.pull_request).not.toBeNull();

    // Run 2: a message starts it; Claude Code resumes the same session, the workspace holds run 1's WIP.
    const before = await requestCount(model);
    await script(
      model,
      [
        { tool_calls: [bash("cat wip.txt && git add wip.txt && git commit -qm 'Add wip' && echo done")] },
        { tool_calls: [{ name: "mcp__guilds__complete_task", arguments: { summary: "Added hello.txt and wip.txt." } }] },
        { content: "Done." },
      ],
      boxes.target,
    );
    const resumedText = `resume-${crypto.randomUUID().slice(0, 8)}`;
    expect((await call("POST", `/api/tasks/${task.id}/messages`, { content: `Finish it (${resumedText}).` })).status).toBe(202);
    const resumedCall = await modelRequest(model, before, 300_000);
    const opening = promptText(resumedCall);
    expect(opening, "the new run's message").toContain(resumedText);
    expect(opening, "the resumed session carries run 1's turns").toContain(marker);
    // Run 1's own tool call and its result are in the request: the session itself, not a summary of it.
    const firstCallId = calls[0]!.payload.tool_calls![0]!.id;
    expect(resumedCall.body.messages.some((m) => m.role === "tool" && (m as { tool_call_id?: string }).tool_call_id === firstCallId)).toBe(true);
    const done = await taskReaches(task.id, ["in_review"], 300_000);
    expect(done.status).toBe("in_review");
    const runs = await taskRuns(task.id);
    expect(runs.map((r) => r.outcome)).toEqual(["end_turn", "completed"]);
    expect(runs[1]!.report.harness).toMatchObject({ session_id: harness.session_id, resumed: true, fresh_reason: null });
    const second = await transcript(runs[1]!.run_id, boxes.target);
    expect(second.filter((r) => r.role === "tool").map((r) => String(r.payload.content))[0], "run 1's WIP is in the workspace").toContain("work in progress");

    // TASK-024: the pull request is ready, with the summary.
    const pulls = (await forge("GET", `/repos/${setup.fullName}/pulls`)).json.pulls as Array<{ number: number; draft: boolean }>;
    expect(pulls.find((p) => p.number === done.pull_request!.number)?.draft).toBe(false);
    const all = await modelRequests(model);
    expect(all.length).toBe(before + 3);
  }, 1_200_000);

  it("TASK-033 / TASK-034 / TASK-038: when the session file is gone (the workspace reset), the next run starts a fresh session from the transcript summary and the report says so", async () => {
    await settings({ "runs.keepAliveSeconds": 1 });
    const agent = await agentWithSecret(call, "Fresh", { coding: true, task_harness: { kind: "claude-code" } });
    const setup = await codingSetup("Fresh", agent);
    const model = agent.model;
    const earlier = `earlier-${crypto.randomUUID().slice(0, 8)}`;
    await script(model, [{ tool_calls: [bash(`echo ${earlier}`)] }, { content: "Printed it." }], boxes.target);
    const task = await fileTask(setup, "Print a word");
    await taskReaches(task.id, ["waiting"], 300_000);
    const [first] = await taskRuns(task.id);
    const session = (first!.report.harness as { session_id: string }).session_id;

    const reset = await call("POST", `/api/tasks/${task.id}/reset-workspace`);
    expect(reset.status, reset.text).toBeLessThan(300);
    const before = await requestCount(model);
    await script(model, [{ content: "Starting again from the summary." }], boxes.target);
    expect((await call("POST", `/api/tasks/${task.id}/messages`, { content: "Go on, please." })).status).toBe(202);
    const opening = promptText(await modelRequest(model, before, 300_000));
    expect(opening, "the fresh session starts from the summary of the earlier run").toContain("This task ran before");
    expect(opening).toContain(earlier);
    await taskReaches(task.id, ["waiting"], 300_000);
    const runs = await taskRuns(task.id);
    expect(runs[1]!.report.harness).toMatchObject({ session_id: session, resumed: false, fresh_reason: "session_missing" });
  }, 900_000);

  it("TASK-028: Claude Code's own turn limit ends the run limit_reached, named as the harness's", async () => {
    await settings({ "runs.keepAliveSeconds": 1 });
    const agent = await agentWithSecret(call, "Brief", { coding: true, task_harness: { kind: "claude-code", max_turns: 1 } });
    const setup = await codingSetup("Brief", agent);
    await script(agent.model, [{ tool_calls: [bash("echo one")] }, { content: "never asked for" }], boxes.target);
    const task = await fileTask(setup, "One turn only");
    const ended = await taskReaches(task.id, ["limit_reached"], 300_000);
    expect(ended.status).toBe("limit_reached");
    const [run] = await taskRuns(task.id);
    expect(run).toMatchObject({ outcome: "limit_reached", report: expect.objectContaining({ detail: "harness.max_turns" }) });
    expect(await requestCount(agent.model)).toBe(1);
  }, 600_000);
});
