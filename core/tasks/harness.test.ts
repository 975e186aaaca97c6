import { describe, expect, it } from "vitest";
import type { agents } from "../db/schema";
import { buildSnapshot } from "../runs/snapshot";
import {
  CLAUDE_CODE_VERSION,
  DEFAULT_TASK_HARNESS,
  harnessIssues,
  harnessToStore,
  PLATFORM_HARNESS_VERSION,
  runHarness,
  TaskHarnessPatch,
  taskHarness,
} from "./harness";
import { ALLOWED_FLAGS, extraFlagArgv, extraFlagIssues } from "./harness-flags";

const coding = { coding: true };
const fieldsOf = (input: unknown, agent = coding) => harnessIssues(input, agent).map((i) => i.field);

describe("task harness settings", () => {
  it("TASK-012: the harness settings default to the platform, 100 turns, bypassPermissions and the openai API", () => {
    expect(DEFAULT_TASK_HARNESS).toEqual({
      kind: "platform",
      model: null,
      max_turns: 100,
      permission_mode: "bypassPermissions",
      allowed_tools: [],
      disallowed_tools: [],
      extra_flags: [],
      model_api: "openai",
    });
    expect(taskHarness({})).toEqual(DEFAULT_TASK_HARNESS);
    expect(taskHarness(null)).toEqual(DEFAULT_TASK_HARNESS);
    expect(taskHarness("claude-code")).toEqual(DEFAULT_TASK_HARNESS);
    // Each read is its own object: changing one never changes the defaults.
    taskHarness({}).allowed_tools.push("Edit");
    expect(DEFAULT_TASK_HARNESS.allowed_tools).toEqual([]);
  });

  it("TASK-012: a stored field that is missing or no longer valid takes its default; the valid ones stay", () => {
    const stored = { kind: "claude-code", max_turns: 5000, permission_mode: "plan", extra_flags: ["--resume", "x"], model: "opus", retired: true };
    expect(taskHarness(stored)).toEqual({ ...DEFAULT_TASK_HARNESS, kind: "claude-code", permission_mode: "plan", model: "opus" });
  });

  it("TASK-012: a PATCH merges its fields over the stored ones; null resets to the defaults; nothing given keeps them", () => {
    const stored = { kind: "claude-code", max_turns: 20, bogus: 1 };
    expect(harnessToStore(stored, { max_turns: 30, model: null })).toEqual({ kind: "claude-code", max_turns: 30, model: null });
    expect(harnessToStore(stored, null)).toEqual({});
    expect(harnessToStore(stored, undefined)).toEqual({ kind: "claude-code", max_turns: 20 });
  });

  it("TASK-012: every refused harness setting names its field", () => {
    expect(fieldsOf({ kind: "codex" })).toEqual(["task_harness.kind"]);
    expect(fieldsOf({ max_turns: 0 })).toEqual(["task_harness.max_turns"]);
    expect(fieldsOf({ max_turns: 1001 })).toEqual(["task_harness.max_turns"]);
    expect(fieldsOf({ max_turns: 2.5 })).toEqual(["task_harness.max_turns"]);
    expect(fieldsOf({ permission_mode: "dangerous" })).toEqual(["task_harness.permission_mode"]);
    expect(fieldsOf({ model_api: "gemini" })).toEqual(["task_harness.model_api"]);
    expect(fieldsOf({ model: "--dangerously-skip-permissions" })).toEqual(["task_harness.model"]);
    expect(fieldsOf({ model: "" })).toEqual(["task_harness.model"]);
    expect(fieldsOf({ allowed_tools: ["Edit", "Bash(git diff:*)", "Bash, Edit"] })).toEqual(["task_harness.allowed_tools.2"]);
    expect(fieldsOf({ disallowed_tools: ["WebFetch", "Bash(rm\n-rf)"] })).toEqual(["task_harness.disallowed_tools.1"]);
    expect(fieldsOf({ allowed_tools: ["Bash(a)(b)"] })).toEqual(["task_harness.allowed_tools.0"]);
    expect(fieldsOf({ allowed_tools: ["Read\u0000"] })).toEqual(["task_harness.allowed_tools.0"]);
    expect(fieldsOf({ allowed_tools: Array.from({ length: 65 }, () => "Edit") })).toEqual(["task_harness.allowed_tools"]);
    expect(fieldsOf({ extra_flags: ["--strict-mcp-config", "--effort", "high", "--output-format", "json"] })).toEqual(["task_harness.extra_flags.3"]);
    expect(fieldsOf({ extra_flags: Array.from({ length: 33 }, () => "--strict-mcp-config") })).toContain("task_harness.extra_flags");
    expect(fieldsOf({ surprise: true })).toEqual(["task_harness.surprise"]);
    expect(fieldsOf("claude-code")).toEqual(["task_harness"]);
  });

  it("TASK-012: a claude-code harness on an agent that is not a coding agent is refused at task_harness.kind", () => {
    expect(harnessIssues({ kind: "claude-code" }, { coding: false })).toEqual([
      { field: "task_harness.kind", message: expect.stringContaining("coding agent") },
    ]);
    expect(harnessIssues({ kind: "platform", max_turns: 5 }, { coding: false })).toEqual([]);
    expect(harnessIssues({ kind: "claude-code", allowed_tools: ["Edit", "Bash(git:*)", "mcp__forge__read", "Read(/data/workspace/**)"] }, coding)).toEqual([]);
    expect(harnessIssues(null, { coding: false })).toEqual([]);
  });

  it("TASK-012: the extra flags allow only the allowlist, each flag then its value", () => {
    const good = [
      "--add-dir",
      "/data/workspace/lib",
      "--add-dir",
      "/data/workspace",
      "--fallback-model",
      "claude-sonnet-4-5,sonnet",
      "--betas",
      "context-1m-2025-08-07",
      "--effort",
      "xhigh",
      "--strict-mcp-config",
      "--disable-slash-commands",
      "--exclude-dynamic-system-prompt-sections",
    ];
    expect(extraFlagIssues(good)).toEqual([]);
    expect(TaskHarnessPatch.safeParse({ extra_flags: good }).success).toBe(true);
    expect(Object.keys(ALLOWED_FLAGS).sort()).toEqual(
      [
        "--add-dir",
        "--betas",
        "--disable-slash-commands",
        "--effort",
        "--exclude-dynamic-system-prompt-sections",
        "--fallback-model",
        "--strict-mcp-config",
      ].sort(),
    );
  });

  it("TASK-012: every flag that could break the stream, redirect traffic, change the session, read the key or leave the workspace is refused", () => {
    const dangerous = [
      "--output-format",
      "--input-format",
      "--print",
      "-p",
      "--verbose",
      "--include-partial-messages",
      "--replay-user-messages",
      "--json-schema",
      "--resume",
      "-r",
      "--continue",
      "-c",
      "--session-id",
      "--fork-session",
      "--no-session-persistence",
      "--worktree",
      "--settings",
      "--setting-sources",
      "--mcp-config",
      "--bare",
      "--plugin-dir",
      "--plugin-url",
      "--agents",
      "--file",
      "--dangerously-skip-permissions",
      "--allow-dangerously-skip-permissions",
      "--dangerously-anything-new",
      "--permission-mode",
      "--permission-prompts",
      "--model",
      "--max-turns",
      "--allowedTools",
      "--disallowed-tools",
      "--tools",
      "--debug",
      "-d",
      "--debug-file",
      "--system-prompt",
      "--append-system-prompt",
      "--chrome",
      "--remote-control",
      "--some-future-flag",
    ];
    for (const flag of dangerous) {
      const issues = extraFlagIssues([flag, "value"]);
      expect(issues, flag).toEqual([{ index: 0, message: expect.stringMatching(/not (an )?allowed/) }]);
    }
    expect(extraFlagIssues(["--model", "opus"])[0]!.message).toContain("task_harness.model");
    expect(extraFlagIssues(["--debug-file", "/tmp/log"])[0]!.message).toContain("credentials");
  });

  it("TASK-012: values are checked, stray items and --flag=value are refused, each at its index", () => {
    expect(extraFlagIssues(["--add-dir", "/etc"])).toEqual([{ index: 1, message: "must be a path under /data/workspace" }]);
    expect(extraFlagIssues(["--add-dir", "/data/workspace/../etc"])).toEqual([{ index: 1, message: "must be a path under /data/workspace" }]);
    expect(extraFlagIssues(["--add-dir", "/data/workspaces"])).toEqual([{ index: 1, message: "must be a path under /data/workspace" }]);
    expect(extraFlagIssues(["--add-dir", "/data/workspace/a\nb"])).toHaveLength(1);
    expect(extraFlagIssues(["--add-dir", "--dangerously-skip-permissions"])).toEqual([
      { index: 0, message: "--add-dir needs a value as the next item" },
      { index: 1, message: expect.stringContaining("not allowed") },
    ]);
    expect(extraFlagIssues(["--effort"])).toEqual([{ index: 0, message: "--effort needs a value as the next item" }]);
    expect(extraFlagIssues(["--effort", "turbo"])).toEqual([{ index: 1, message: expect.stringContaining("low, medium") }]);
    expect(extraFlagIssues(["--fallback-model", "a b"])).toEqual([{ index: 1, message: expect.stringContaining("model name") }]);
    expect(extraFlagIssues(["--betas", "Bad Beta"])).toHaveLength(1);
    expect(extraFlagIssues(["--strict-mcp-config", "yes"])).toEqual([{ index: 1, message: expect.stringContaining("must be a flag") }]);
    expect(extraFlagIssues(["--effort=high"])).toEqual([{ index: 0, message: "give the flag and its value as separate items" }]);
    expect(extraFlagIssues(["--output-format=json"])).toEqual([{ index: 0, message: expect.stringContaining("not allowed") }]);
    expect(extraFlagIssues(["--effort", "low", "--effort", "high"])).toEqual([{ index: 2, message: "--effort is given more than once" }]);
  });

  it("TASK-012: the flags reach the command line as --flag=value, so a many-valued flag cannot swallow the prompt", () => {
    expect(extraFlagArgv(["--add-dir", "/data/workspace/lib", "--strict-mcp-config", "--betas", "context-1m-2025-08-07"])).toEqual([
      "--add-dir=/data/workspace/lib",
      "--strict-mcp-config",
      "--betas=context-1m-2025-08-07",
    ]);
  });

  it("TASK-012: a coding agent's task run records its harness and version; its other runs the platform; other agents none", () => {
    const agent = { coding: true, model: "lead-model", taskHarness: { kind: "claude-code", max_turns: 12, allowed_tools: ["Edit"] } };
    expect(runHarness(agent, "task")).toEqual({
      kind: "claude-code",
      version: CLAUDE_CODE_VERSION,
      settings: {
        model: "lead-model",
        max_turns: 12,
        permission_mode: "bypassPermissions",
        allowed_tools: ["Edit"],
        disallowed_tools: [],
        extra_flags: [],
        model_api: "openai",
      },
    });
    expect(runHarness({ ...agent, taskHarness: { ...agent.taskHarness, model: "opus" } }, "task")?.settings.model).toBe("opus");
    expect(runHarness(agent, "direct")).toEqual({ kind: "platform", version: PLATFORM_HARNESS_VERSION, settings: {} });
    expect(runHarness({ ...agent, taskHarness: {} }, "task")).toEqual({ kind: "platform", version: "platform", settings: {} });
    expect(runHarness({ ...agent, coding: false }, "task")).toBeUndefined();
  });

  it("EXACT-008: a coding agent's snapshot records what generates the run; the other fields and version 1 stay as they were", () => {
    const now = new Date(0);
    const row: typeof agents.$inferSelect = {
      id: "a",
      organisationId: "o",
      guildId: "g",
      name: "Coder",
      description: "",
      instructions: "",
      model: "lead-model",
      modelBaseUrl: null,
      modelApiKeySecret: null,
      maxSteps: 40,
      maxToolCalls: 50,
      maxInputTokens: 100_000,
      keepToolResultGenerations: 1,
      projectionPolicyVersion: 1,
      thinkingLevel: "off",
      browser: false,
      coding: true,
      cli: true,
      scripting: true,
      memory: false,
      groupPost: true,
      browserLanguage: "en-US",
      maxWorkspaceMib: 2048,
      maxScripts: 10,
      taskHarness: { kind: "claude-code", permission_mode: "acceptEdits" },
      workspaceMib: null,
      archivedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    const before = buildSnapshot(row, []);
    expect(before).not.toHaveProperty("harness");
    const snapshot = buildSnapshot(row, [], [], [], [], runHarness(row, "task"));
    expect(snapshot).toEqual({ ...before, harness: { kind: "claude-code", version: CLAUDE_CODE_VERSION, settings: expect.any(Object) } });
    expect(snapshot.version).toBe(1);
    expect(snapshot.harness?.settings).toMatchObject({ model: "lead-model", permission_mode: "acceptEdits", max_turns: 100 });
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  });
});
