import { describe, expect, it } from "vitest";
import { rateLimitResetAt } from "../providers/provider-error";
import { type TurnError, turnOutcome } from "../runs/turn";
import { gatewayRemote, gatewayTokensFile, newCredential, sameCredential } from "./credential";
import { taskPrompt } from "./prompt";
import { continuationSummary, SUMMARY_CAP_BYTES } from "./summary";
import { turnEnding } from "./turn";

const user = (content: string, source = "operator") => ({ role: "user", payload: { role: "user", content }, metadata: { source } });
const assistant = (content: string | null, calls: Array<[string, string]> = []) => ({
  role: "assistant",
  payload: { role: "assistant", content, tool_calls: calls.map(([name, args], i) => ({ id: `c${i}`, type: "function", function: { name, arguments: args } })) },
});

describe("continuation summary", () => {
  it("TASK-033: the title, description, user and agent messages, and one line per tool call", () => {
    const text = continuationSummary({
      title: "Fix login",
      description: "The form\nbreaks",
      rows: [
        { role: "system", payload: { role: "system", content: "sys" } },
        user("Task WEB-1 prompt", "task_prompt"),
        assistant("Looking", [
          ["shell", '{"command":"ls"}'],
          ["shell", '{"command":"git status"}'],
        ]),
        { role: "tool", payload: { role: "tool", tool_call_id: "c0", content: "a.ts" } },
        user("please also add a test", "task_message"),
        assistant("Done."),
      ],
    });
    expect(text).toBe(
      [
        "Task: Fix login",
        "Description: The form\nbreaks",
        "",
        "Earlier runs:",
        "Agent: Looking",
        'Tool: shell {"command":"ls"}',
        'Tool: shell {"command":"git status"}',
        "User: please also add a test",
        "Agent: Done.",
      ].join("\n"),
    );
  });

  it("TASK-033: capped at 16 KiB, the oldest lines left out first and counted", () => {
    const rows = Array.from({ length: 400 }, (_, i) => assistant(`step ${i} ${"x".repeat(100)}`));
    const text = continuationSummary({ title: "T", description: "D", rows });
    expect(new TextEncoder().encode(text).byteLength).toBeLessThanOrEqual(SUMMARY_CAP_BYTES);
    expect(text).toContain("Agent: step 399");
    expect(text).not.toContain("Agent: step 0 ");
    expect(text).toMatch(/\[\d+ earlier lines left out\]/);
    const huge = continuationSummary({ title: "T", description: "é".repeat(20_000), rows });
    expect(new TextEncoder().encode(huge).byteLength).toBeLessThanOrEqual(SUMMARY_CAP_BYTES);
  });

  it("TASK-009 / TASK-033: the prompt names the branches, and a later run carries the summary", () => {
    const first = taskPrompt({ key: "WEB-1", title: "Fix login", description: "Broken", baseBranch: "main", summary: null });
    expect(first).toContain("factory/task/WEB-1");
    expect(first).toContain("main");
    expect(first).not.toContain("ran before");
    expect(taskPrompt({ key: "WEB-1", title: "Fix", description: "", baseBranch: "main", summary: "Task: Fix" })).toContain("ran before");
  });

  it("TASK-032 / TASK-033: a run after a hand-off starts from its notes, and the messages it starts because of come after", () => {
    const prompt = taskPrompt({
      key: "WEB-1",
      title: "Fix",
      description: "",
      baseBranch: "main",
      summary: "Task: Fix",
      handoff: "Tests pass; the login form is left",
      messages: ["one more check please", "and the logout"],
    });
    expect(prompt).toContain("handed off when its context filled. Its notes for you:\nTests pass; the login form is left");
    expect(prompt).not.toContain("ran before");
    expect(prompt.indexOf("Tests pass")).toBeLessThan(prompt.indexOf("one more check please"));
    expect(prompt).toMatch(/Messages for you since then:\n\none more check please\n\nand the logout$/);
  });
});

describe("gateway credential", () => {
  it("TASK-011: 32 random bytes as base64url, a new one each run", () => {
    const a = newCredential();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newCredential()).not.toBe(a);
  });

  it("TASK-011 / TASK-014: only the exact credential matches; no credential matches nothing", () => {
    const a = newCredential();
    expect(sameCredential(a, a)).toBe(true);
    expect(sameCredential(a, `${a}x`)).toBe(false);
    expect(sameCredential(a, a.slice(0, -1))).toBe(false);
    expect(sameCredential(a, "")).toBe(false);
    expect(sameCredential(null, a)).toBe(false);
    expect(sameCredential("", "")).toBe(false);
  });

  it("TASK-011: the box's tokens file holds the credential for the gateway URL only", () => {
    expect(gatewayRemote("t1", "acme/app")).toBe("http://git.gateway.internal/tasks/t1/acme/app.git");
    expect(JSON.parse(gatewayTokensFile("t1", "acme/app", "cred", "2100-01-01T00:00:00.000Z"))).toEqual({
      "git.gateway.internal/tasks/t1/acme/app": { token: "cred", expires_at: "2100-01-01T00:00:00.000Z" },
    });
  });
});

describe("turn endings", () => {
  const none = { completed: null, question: null };
  /** The turn a generation with these errors (and hand-off) ends with. */
  const turn = (errors: TurnError[], handoff?: { text: string | null }) => turnOutcome({ status: "active", errors, ...(handoff ? { handoff } : {}) }, false);
  it("TASK-016 / TASK-020: a clean turn goes on; a blocking question waits to end blocked", () => {
    expect(turnEnding({ turn: turn([]), ...none })).toEqual({ outcome: null, blocking: false });
    expect(turnEnding({ turn: turn([]), completed: null, question: { question: "?", blocking: true } })).toEqual({ outcome: null, blocking: true });
  });
  it("CHAIN-003 / TASK-033: a hand-off ends the run handed_off with its text, unless complete_task was called", () => {
    expect(turnEnding({ turn: turn([], { text: "notes" }), ...none })).toEqual({ outcome: "handed_off", handoff: "notes" });
    expect(turnEnding({ turn: turn([], { text: null }), ...none })).toEqual({ outcome: "handed_off", handoff: null });
    expect(turnEnding({ turn: turn([], { text: "notes" }), completed: "done", question: null })).toEqual({ outcome: "completed", detail: "done" });
    expect(turnEnding({ turn: turn([{ code: "generation.max_chain" }]), ...none })).toMatchObject({ outcome: "limit_reached", detail: "generation.max_chain" });
  });
  it("TASK-015 / TASK-024: complete_task ends the run completed", () => {
    expect(turnEnding({ turn: turn([]), completed: "done", question: null })).toEqual({ outcome: "completed", detail: "done" });
  });
  it("TASK-027: a provider 429 ends rate_limited with its reset time", () => {
    const at = "2100-01-01T00:01:00.000Z";
    expect(turnEnding({ turn: turn([{ code: "provider.error", http_status: 429, reset_at: at }]), ...none })).toEqual({
      outcome: "rate_limited",
      resetAt: Date.parse(at),
    });
    expect(turnEnding({ turn: turn([{ code: "provider.error", http_status: 429 }]), ...none })).toEqual({ outcome: "rate_limited", resetAt: null });
  });
  it("TASK-028 / TASK-030 / TASK-031: limits, cancel, a lost box and other failures", () => {
    expect(turnEnding({ turn: turn([{ code: "generation.max_steps" }]), ...none }).outcome).toBe("limit_reached");
    expect(turnEnding({ turn: turn([{ code: "usage.spend_limit" }]), ...none }).outcome).toBe("limit_reached");
    // A harness's own limits: Claude Code's turns per prompt, its context.
    expect(turnEnding({ turn: turn([{ code: "harness.max_turns" }]), ...none })).toMatchObject({ outcome: "limit_reached", detail: "harness.max_turns" });
    expect(turnEnding({ turn: turn([{ code: "harness.context_limit" }]), ...none }).outcome).toBe("limit_reached");
    expect(turnEnding({ turn: turn([{ code: "generation.cancelled" }]), completed: "x", question: null }).outcome).toBe("cancelled");
    expect(turnEnding({ turn: turn([{ code: "sandbox.unavailable" }]), ...none }).outcome).toBe("sandbox_lost");
    expect(turnEnding({ turn: turn([{ code: "provider.error", http_status: 500 }]), ...none }).outcome).toBe("failed");
  });
  it("TASK-027: the reset time from retry-after or x-ratelimit-reset headers", () => {
    const h = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
    expect(rateLimitResetAt(h({ "retry-after": "30" }), 1_000)).toBe(31_000);
    expect(rateLimitResetAt(h({ "retry-after": "Fri, 01 Jan 2100 00:00:00 GMT" }), 0)).toBe(Date.UTC(2100, 0, 1));
    expect(rateLimitResetAt(h({ "x-ratelimit-reset": "4102444800" }), 0)).toBe(Date.UTC(2100, 0, 1));
    expect(rateLimitResetAt(h({ "x-ratelimit-reset": "20" }), 1_000)).toBe(21_000);
    expect(rateLimitResetAt(h({ "x-ratelimit-reset-requests": "1m30s" }), 0)).toBe(90_000);
    expect(rateLimitResetAt(h({ "x-ratelimit-reset-tokens": "soon" }), 0)).toBeNull();
    expect(rateLimitResetAt(h({}), 0)).toBeNull();
  });
});
