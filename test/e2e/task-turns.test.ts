import { describe, expect, it } from "vitest";
import { handoffRequest } from "../../core/runs/chain";
import { script, transcript } from "./agents";
import { agentWithSecret, containerStack } from "./container-stack";
import { until } from "./sandbox-box";
import { promptText, shell, taskSetting } from "./task-setting";

/**
 * What starts a task's next run and what that run's first model call holds, on real
 * containers, the scripted mock model and the local forge: an answer to a blocking question,
 * a message to a task in review, and the hand-off of a run whose input budget filled up.
 * Each model call is read as the mock model received it.
 */
const boxes = containerStack({});
const { call } = boxes;
const { settings, codingSetup, fileTask, readTask, taskRuns, taskReaches, modelRequests, requestCount, modelRequest } = taskSetting(boxes);

type TaskMessage = { id: string; content: string; delivered_at: string | null; delivered_run_id: string | null };
const taskMessages = async (id: string) => (await call("GET", `/api/tasks/${id}/messages`)).json.data as TaskMessage[];

async function send(taskId: string, content: string) {
  const sent = await call("POST", `/api/tasks/${taskId}/messages`, { content });
  expect(sent.status, sent.text).toBe(202);
}

describe("a task's next run and its first prompt", () => {
  it("TASK-003 / TASK-019 / TASK-020 / TASK-026 / TASK-033: a blocking question unanswered past the keep-alive blocks the task; the answer starts a run whose first model call holds the question and the answer", async () => {
    // The keep-alive's minimum: the blocking wait ends at once.
    await settings({ "runs.keepAliveSeconds": 1 });
    const setup = await codingSetup("Asker");
    const model = setup.agent.model;
    const question = "Which store should the cache use, Redis or Postgres?";
    const answer = "Use Postgres for the cache, no new services.";
    await script(
      model,
      [{ tool_calls: [{ name: "ask_question", arguments: { question, blocking: true } }] }, { content: "Waiting for the answer." }],
      boxes.target,
    );
    const task = await fileTask(setup, "Pick a cache store");

    const blocked = await taskReaches(task.id, ["blocked"], 300_000);
    expect(blocked.status).toBe("blocked");
    const [first] = await taskRuns(task.id);
    expect(first!.outcome).toBe("blocked");
    // The question is shown in the run's transcript.
    const shown = (await transcript(first!.run_id, boxes.target)).filter((r) => r.metadata?.source === "task_question");
    expect(shown.map((r) => [r.payload.content, r.metadata.blocking])).toEqual([[question, true]]);

    // The answer, as a task message, starts the next run.
    const before = await requestCount(model);
    expect(before).toBe(2);
    await script(model, [{ content: "Postgres it is." }, { content: "Going on with Postgres." }], boxes.target);
    await send(task.id, answer);
    const opening = promptText(await modelRequest(model, before));
    expect.soft(opening, "the next run's first model call names the question").toContain(question);
    expect.soft(opening, "the next run's first model call holds the answer").toContain(answer);

    await taskReaches(task.id, ["waiting"], 300_000);
    const runs = await taskRuns(task.id);
    expect(runs.map((r) => r.outcome)).toEqual(["blocked", "end_turn"]);
    const [message] = await taskMessages(task.id);
    expect(message).toMatchObject({ content: answer, delivered_run_id: runs[1]!.run_id });
  }, 900_000);

  it("TASK-003 / TASK-024: a message to a task in review starts a run whose first model call holds it; the message lists delivered by that run", async () => {
    await settings({ "runs.keepAliveSeconds": 1 });
    const setup = await codingSetup("Reviewed");
    const model = setup.agent.model;
    await script(
      model,
      [{ tool_calls: [{ name: "complete_task", arguments: { summary: "Read the README; nothing to change." } }] }, { content: "Done." }],
      boxes.target,
    );
    const task = await fileTask(setup, "Check the README");
    expect((await taskReaches(task.id, ["in_review"], 300_000)).status).toBe("in_review");
    expect((await taskRuns(task.id)).map((r) => r.outcome)).toEqual(["completed"]);

    const before = await requestCount(model);
    expect(before).toBe(2);
    await script(model, [{ content: "Checked once more: all fine." }, { content: "Checked again." }], boxes.target);
    const text = "one more check please";
    await send(task.id, text);
    const opening = promptText(await modelRequest(model, before));
    expect.soft(opening, "the new run's first model call holds the message that started it").toContain(text);

    await taskReaches(task.id, ["waiting"], 300_000);
    const runs = await taskRuns(task.id);
    expect(runs.map((r) => r.outcome)).toEqual(["completed", "end_turn"]);
    const [message] = await taskMessages(task.id);
    expect(message).toMatchObject({ content: text, delivered_run_id: runs[1]!.run_id });
    expect(message!.delivered_at).not.toBeNull();
  }, 900_000);

  it("CHAIN-002 / CHAIN-006 / CHAIN-012 / TASK-024: a task run that fills its input budget hands off, and the task goes on at once from the hand-off text to complete", async () => {
    await settings({ "runs.keepAliveSeconds": 1 });
    // 30,000 input tokens: the hand-off point is 21,000. Two results of 33,000 digits are
    // 11,000 tokens each (o200k counts three digits a token, as does the estimate when the
    // rank table is not loaded): past 70% with any opening prompt, and under the cap with the
    // hand-off request for an opening prompt below ~7,800 tokens.
    const agent = await agentWithSecret(call, "Relay", { coding: true, max_input_tokens: 30_000 });
    const setup = await codingSetup("Relay", agent);
    const model = agent.model;
    const digits = "head -c 33000 /dev/zero | tr '\\0' 7; echo";
    const marker = `hand-off-${crypto.randomUUID().slice(0, 8)}`;
    const handoffText = `## Goal\nCheck the README\n## Done\nPrinted the digits (${marker})\n## Decided\nnothing\n## Remaining\ncall complete_task\n## Files\nREADME.md:1 the file to check`;
    await script(
      model,
      [
        { tool_calls: [shell(digits), shell(digits)] },
        { content: handoffText },
        { tool_calls: [{ name: "complete_task", arguments: { summary: "Checked the README after the hand-off." } }] },
        { content: "Done." },
      ],
      boxes.target,
    );
    const task = await fileTask(setup, "Fill the budget");

    // The second call is the hand-off: the model is asked for the hand-off text, and gives it.
    const asked = await modelRequest(model, 1, 300_000);
    const [first] = await taskRuns(task.id);
    const rows = await transcript(first!.run_id, boxes.target);
    const counted = rows.filter((r) => r.role === "assistant").map((r) => r.metadata?.projection?.prompt_tokens_counted);
    expect(asked.body.messages.at(-1), `prompt tokens counted per call: ${counted.join(", ")}`).toEqual({ role: "user", content: handoffRequest(1) });
    await until(
      "the hand-off text in the first run's transcript",
      async () => (await transcript(first!.run_id, boxes.target)).some((r) => r.role === "assistant" && String(r.payload.content).includes(marker)),
      120_000,
    );

    // The task does not idle: a next model call comes, starting from the hand-off text.
    let rest = await readTask(task.id);
    await until(
      "a model call after the hand-off, or the task to come to rest",
      async () => (await requestCount(model)) > 2 || !["queued", "running"].includes((rest = await readTask(task.id)).status),
      300_000,
    );
    const requests = await modelRequests(model);
    expect(requests.length, `after the hand-off the task became ${rest.status} with no further model call`).toBeGreaterThan(2);
    const next = promptText(requests[2]!);
    expect(next, "the next run starts from the hand-off text").toContain(marker);
    expect(next, "the next run starts afresh, without the output that filled the budget").not.toContain("7".repeat(1_000));
    expect(next).not.toContain(handoffRequest(1));

    const done = await taskReaches(task.id, ["in_review"], 300_000);
    expect(done.status).toBe("in_review");
    // Two runs of the task: the first handed off with its notes, the second went on as its continuation.
    const runs = await taskRuns(task.id);
    expect(runs.map((r) => r.outcome)).toEqual(["handed_off", "completed"]);
    const continuation = (await call("GET", `/api/runs/${runs[1]!.run_id}`)).json;
    expect(continuation.chain).toMatchObject({ previous_run_id: runs[0]!.run_id, index: 2 });
  }, 900_000);
});
