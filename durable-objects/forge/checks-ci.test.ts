/**
 * CI reaches the task through the local forge's own CI (ISSUE-33): the task's branch carries
 * a `.forge/ci.sh`, the forge runs it in a throwaway container at each push and posts a check
 * run, and the platform reads it through the Checks API with the repository's installation.
 * Skipped, saying why, where the forge's CI is off (no container engine or lite image).
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { tasks } from "../../core/db/schema";
import type { ChecksEvent } from "../../core/github/webhook-event";
import { forgePush } from "../../test/workerd/forge-branch";
import { act, complete, completedRun, getTask, messagesOf, pullOf, queuedAgain, type Seeded, seedForgeTask } from "../../test/workerd/forge-task";
import { forgeAdmin } from "../../test/workerd/github";
import { withDb } from "../../test/workerd/tasks";

/** The forge's `check_suite` completed delivery for `sha`, once its CI finished (within a minute). */
async function suiteCompleted(seeded: Seeded, sha: string): Promise<{ conclusion: string; source: ChecksEvent["source"] }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { json } = await forgeAdmin("GET", `/deliveries?repository=${encodeURIComponent(seeded.fullName)}&event=check_suite`);
    const done = (json.deliveries as Array<{ payload: any }>).find((d) => d.payload.action === "completed" && d.payload.check_suite.head_sha === sha);
    if (done) return { conclusion: done.payload.check_suite.conclusion, source: "check_suite" };
    if (Date.now() > deadline) throw new Error(`the forge's CI did not complete on ${sha}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The repository's CI script: failing at once, or passing after 10 s (so a run completing just after the push finds it running, however loaded the machine). */
const script = (exit: number) =>
  exit
    ? 'echo "running the tests"\necho "AssertionError: expected 5 to be 4" >&2\nexit 1\n'
    : 'echo "running the tests"\nsleep 10\necho "all 3 tests passed"\n';

describe("CI on the local forge reaches the task (ISSUE-33)", { timeout: 180_000 }, () => {
  it("ISSUE-33: red CI reaches the agent with its output; the fix's CI still running holds the pull request back until it passes", async (context) => {
    const ci = await forgeAdmin("GET", "/ci");
    if (ci.status !== 200 || ci.json.off) context.skip(`the forge's CI is off: ${ci.status === 200 ? ci.json.off : `no CI (HTTP ${ci.status})`}`);
    const seeded = await seedForgeTask("Checks on the forge");
    const red = await forgePush(seeded.fullName, seeded.forgeToken, seeded.task.branch, seeded.head, seeded.head, "add the tests", {
      ".forge/ci.sh": script(1),
    });
    expect((await suiteCompleted(seeded, red)).conclusion).toBe("failure");
    const told = await withDb((db) => act(seeded, db, undefined, red));
    expect(told).toEqual({ outcome: "accepted", detail: expect.stringContaining("the failure sent to the agent") });
    const [message] = await messagesOf(seeded);
    expect(message!.content).toMatch(new RegExp(`^CI failed on ${red.slice(0, 7)}: fix it and push`));
    expect(message!.content).toContain("## ci: failure");
    expect(message!.content).toContain("AssertionError: expected 5 to be 4");
    expect(await queuedAgain(seeded)).toBe(true);

    // The agent pushes a fix and completes while the fix's CI runs.
    const green = await forgePush(seeded.fullName, seeded.forgeToken, seeded.task.branch, red, red, "fix the adder", { ".forge/ci.sh": script(0) });
    await completedRun(seeded, "Fixed the adder; the tests pass.");
    // The run's end settled the task in review, as a completed run does.
    await withDb((db) => db.update(tasks).set({ status: "in_review" }).where(eq(tasks.id, seeded.task.id)));
    expect(await withDb((db) => complete(seeded, db))).toBe(false);
    const waiting = await getTask(seeded);
    expect([waiting.status, waiting.awaiting_checks]).toEqual(["waiting", true]);
    expect((await pullOf(seeded)).draft).toBe(true);
    expect((await suiteCompleted(seeded, green)).conclusion).toBe("success");
    const ready = await withDb((db) => act(seeded, db, undefined, green));
    expect(ready.detail).toContain(`pull request #${seeded.pull.number} marked ready`);
    const task = await getTask(seeded);
    expect([task.status, task.awaiting_checks, task.checks.state, task.checks.head_sha]).toEqual(["in_review", false, "passing", green]);
    const pull = await pullOf(seeded);
    expect(pull.draft).toBe(false);
    expect(JSON.stringify(pull.comments)).toContain("Fixed the adder; the tests pass.");
    expect(await messagesOf(seeded)).toHaveLength(1);
  });
});
