import { describe, expect, it } from "vitest";
import type { CheckRun } from "../github/checks-api";
import { checksDecision, checksState, checksSummary, FAILING_CONCLUSIONS, failureMessage, OUTPUT_TAIL_BYTES, storedChecks, tailWithin } from "./checks";

const SHA = "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39";
let nextId = 1;
const run = (name: string, status: string, conclusion: string | null, output: Partial<CheckRun["output"]> = {}): CheckRun => ({
  id: nextId++,
  name,
  status,
  conclusion,
  html_url: `https://forge.test/acme/app/runs/${name}`,
  output: { title: null, summary: null, text: null, ...output },
});

describe("checks of a task's branch (ISSUE-33)", () => {
  it("ISSUE-33: no runs is none; any run not completed is pending, even beside a failure; a failing conclusion fails; success, neutral and skipped pass", () => {
    expect(checksState([])).toBe("none");
    expect(checksState([run("test", "completed", "failure"), run("lint", "in_progress", null)])).toBe("pending");
    expect(checksState([run("test", "queued", null)])).toBe("pending");
    for (const conclusion of FAILING_CONCLUSIONS)
      expect(checksState([run("test", "completed", "success"), run("lint", "completed", conclusion)])).toBe("failing");
    expect(checksState([run("a", "completed", "success"), run("b", "completed", "neutral"), run("c", "completed", "skipped")])).toBe("passing");
  });

  it("ISSUE-33: a check re-run counts by its latest run", () => {
    const failed = run("test", "completed", "failure");
    const rerun = run("test", "completed", "success");
    expect(checksState([rerun, failed])).toBe("passing");
    expect(checksState([run("test", "in_progress", null), rerun])).toBe("pending");
  });

  it("ISSUE-33: the output's tail is its last 4 KiB, cut on a character boundary", () => {
    expect(tailWithin("short", 10)).toEqual({ text: "short", cut: false });
    expect(tailWithin("ab€", 3)).toEqual({ text: "€", cut: true });
    // "€" is 3 bytes: 2 bytes from the end start inside it, so the tail starts after it.
    expect(tailWithin("a€b", 2)).toEqual({ text: "b", cut: true });
    const long = `${"é".repeat(5000)}END`;
    const tail = tailWithin(long, OUTPUT_TAIL_BYTES);
    expect(tail.cut).toBe(true);
    expect(tail.text.endsWith("END")).toBe(true);
    expect(new TextEncoder().encode(tail.text).length).toBeLessThanOrEqual(OUTPUT_TAIL_BYTES);
    expect(tail.text).not.toContain("\uFFFD");
  });

  it("ISSUE-33: the failure message names each failed check, its conclusion, title, summary and the end of its output, and says what to do", () => {
    const output = `${"line of early noise\n".repeat(400)}FAIL test/math.test.ts > adds\nExpected 4, received 5\n`;
    const message = failureMessage(SHA, [
      run("unit tests", "completed", "failure", { title: "1 test failed", summary: "math.test.ts: adds", text: output }),
      run("lint", "completed", "timed_out", { title: "Timed out" }),
      run("build", "completed", "success", { title: "Built", text: "all good" }),
    ]);
    expect(message.split("\n")[0]).toMatch(/^CI failed on 3f2a9c1: fix it and push\./);
    expect(message).toContain("## unit tests: failure");
    expect(message).toContain("**1 test failed**");
    expect(message).toContain("math.test.ts: adds");
    expect(message).toContain("Expected 4, received 5");
    expect(message).toContain("cut: the earlier part is left out");
    expect(message).toContain("## lint: timed_out");
    expect(message).not.toContain("build");
    expect(message).not.toContain("all good");
    // Only the tail of the long output: well under the whole.
    expect(message.length).toBeLessThan(output.length);
    expect(message.split("line of early noise").length - 1).toBeLessThanOrEqual(Math.ceil(OUTPUT_TAIL_BYTES / 20));
  });

  it("ISSUE-33: output holding backticks cannot close its fence", () => {
    const message = failureMessage(SHA, [run("docs", "completed", "failure", { text: "see ```` here" })]);
    expect(message).toContain("`````\nsee ```` here\n`````");
  });

  it("ISSUE-33: the stored summary lists each check's name, status, conclusion and link, and keeps whom it notified", () => {
    const at = new Date("2026-12-06T12:00:00Z");
    const summary = checksSummary(SHA, [run("test", "completed", "failure"), run("build", "in_progress", null)], at, SHA);
    expect(summary).toEqual({
      head_sha: SHA,
      state: "pending",
      runs: [
        { name: "build", status: "in_progress", conclusion: null, url: "https://forge.test/acme/app/runs/build" },
        { name: "test", status: "completed", conclusion: "failure", url: "https://forge.test/acme/app/runs/test" },
      ],
      updated_at: "2026-12-06T12:00:00.000Z",
      notified_sha: SHA,
    });
    expect(storedChecks(summary)).toEqual(summary);
    expect(storedChecks({})).toBeNull();
    expect("notified_sha" in checksSummary(SHA, [], at, null)).toBe(false);
  });

  it("ISSUE-33: failing tells the agent once per commit and never a closed task; passing while awaiting marks ready; pending changes nothing", () => {
    const base = { sha: SHA, notifiedSha: null, awaiting: false, closed: false };
    expect(checksDecision({ ...base, state: "failing" })).toEqual({ notify: true, ready: false, stopAwaiting: false });
    expect(checksDecision({ ...base, state: "failing", notifiedSha: SHA })).toEqual({ notify: false, ready: false, stopAwaiting: false });
    expect(checksDecision({ ...base, state: "failing", notifiedSha: "0".repeat(40) }).notify).toBe(true);
    expect(checksDecision({ ...base, state: "failing", closed: true }).notify).toBe(false);
    expect(checksDecision({ ...base, state: "failing", attempt: true }).notify).toBe(false);
    expect(checksDecision({ ...base, state: "failing", awaiting: true })).toEqual({ notify: true, ready: false, stopAwaiting: true });
    expect(checksDecision({ ...base, state: "passing" })).toEqual({ notify: false, ready: false, stopAwaiting: false });
    expect(checksDecision({ ...base, state: "passing", awaiting: true })).toEqual({ notify: false, ready: true, stopAwaiting: true });
    expect(checksDecision({ ...base, state: "pending", awaiting: true })).toEqual({ notify: false, ready: false, stopAwaiting: false });
  });
});
