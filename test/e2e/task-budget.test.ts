import { describe, expect, it } from "vitest";
import { script } from "./agents";
import { agentWithSecret, containerStack } from "./container-stack";
import { until } from "./sandbox-box";
import { shell, taskSetting } from "./task-setting";

/**
 * A task's budget on real containers, the scripted mock model and the local forge (issue 33):
 * the run that reaches it pauses with its work on the forge, the pull request's description
 * carries the spend, and raising the budget lets the next run go on.
 */
const boxes = containerStack({});
const { call } = boxes;
const { forge, settings, codingSetup, taskReaches, taskRuns, requestCount } = taskSetting(boxes);

type Pull = { number: number; body: string; head: string };

describe("a task's budget on the local stack", () => {
  it("ISSUE-33: the call that crosses the budget is the last; the run ends limit_reached with its commit on the forge and the spend in the pull request; a raise queues the task and its next run completes it", async () => {
    await settings({});
    // mock-model-* is priced 1 USD per million input tokens, 2 per million output.
    const agent = await agentWithSecret(call, "Mock-model", { coding: true });
    const setup = await codingSetup("Budget", agent);
    const { fullName } = setup;
    await script(
      agent.model,
      [
        // 0.0012 USD: over the 0.001 budget, so no call follows in this run.
        {
          tool_calls: [shell("echo paid > paid.txt && git add paid.txt && git commit -qm 'Add paid.txt'")],
          usage: { prompt_tokens: 1000, completion_tokens: 100 },
        },
        { tool_calls: [{ name: "complete_task", arguments: { summary: "Added paid.txt." } }], usage: { prompt_tokens: 1000, completion_tokens: 100 } },
        { content: "Done.", usage: { prompt_tokens: 1000, completion_tokens: 100 } },
      ],
      boxes.target,
    );
    const filed = await call("POST", `/api/guilds/${agent.guildId}/tasks`, {
      title: "Add paid.txt",
      description: "Add paid.txt, please.",
      agent_id: agent.agentId,
      repository_id: setup.repositoryId,
      max_cost_usd: 0.001,
    });
    expect(filed.status, filed.text).toBe(201);
    const task = filed.json as { id: string; key: string };
    const branch = `factory/task/${task.key}`;

    const stopped = await taskReaches(task.id, ["limit_reached"], 300_000);
    expect(stopped).toMatchObject({ max_cost_usd: 0.001, spend_usd: 0.0012 });
    const [first] = await taskRuns(task.id);
    expect(first).toMatchObject({ outcome: "limit_reached", report: expect.objectContaining({ detail: "task.budget" }) });
    expect(await requestCount(agent.model)).toBe(1);
    // The work is on the forge: the branch holds the commit.
    const log = (await forge("GET", `/repos/${fullName}/commits?ref=${encodeURIComponent(branch)}&limit=5`)).json.commits as Array<{ message: string }>;
    // The agent's commit, with the platform's trailers after its subject.
    expect(log.map((c) => c.message.split("\n")[0])).toContain("Add paid.txt");
    // The pull request's description keeps the task's text and carries the spend.
    const pullBody = async () => ((await forge("GET", `/repos/${fullName}/pulls`)).json.pulls as Pull[]).find((p) => p.head === branch)?.body ?? "";
    await until("the spend line in the pull request", async () => (await pullBody()).endsWith("Spend: $0.0012 of $0.001 budget"), 60_000);
    expect(await pullBody()).toBe("Add paid.txt, please.\n\nSpend: $0.0012 of $0.001 budget");

    // Raised: the task goes on where it stopped and completes; the line follows the spend.
    const raised = await call("PATCH", `/api/tasks/${task.id}`, { max_cost_usd: 0.01 });
    expect(raised.status, raised.text).toBe(200);
    const reviewed = await taskReaches(task.id, ["in_review"], 300_000);
    expect((reviewed as typeof reviewed & { spend_usd: number }).spend_usd).toBe(0.0036);
    expect((await taskRuns(task.id)).map((r) => r.outcome)).toEqual(["limit_reached", "completed"]);
    await until("the spend line to follow", async () => (await pullBody()).endsWith("Spend: $0.0036 of $0.01 budget"), 60_000);
    expect(await pullBody()).toBe("Add paid.txt, please.\n\nSpend: $0.0036 of $0.01 budget");
  }, 900_000);
});
