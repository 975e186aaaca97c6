import { describe, expect, it } from "vitest";
import type { TaskHarness } from "./api";
import { flagItems, harnessBody, harnessErrors, harnessShown, harnessValuesOf, listItems } from "./task-harness";

const claudeCode: TaskHarness = {
  kind: "claude-code",
  model: null,
  max_turns: 100,
  permission_mode: "bypassPermissions",
  allowed_tools: ["Edit", "Bash(git diff:*)"],
  disallowed_tools: [],
  extra_flags: ["--add-dir", "/data/workspace/lib", "--strict-mcp-config", "--effort", "high"],
  model_api: "openai",
};

describe("the task harness section", () => {
  it("TASK-012: a harness reads as one tool rule per line and one flag per line with its value", () => {
    const values = harnessValuesOf(claudeCode);
    expect(values).toMatchObject({ kind: "claude-code", model: "", max_turns: "100", allowed_tools: "Edit\nBash(git diff:*)" });
    expect(values.extra_flags).toBe("--add-dir /data/workspace/lib\n--strict-mcp-config\n--effort high");
    expect(harnessValuesOf(undefined)).toMatchObject({ kind: "platform", max_turns: "100", permission_mode: "bypassPermissions", model_api: "openai" });
  });

  it("TASK-012: the body holds only the changed harness fields, and nothing when none changed", () => {
    const values = harnessValuesOf(claudeCode);
    expect(harnessBody(values, claudeCode)).toBeUndefined();
    // The same flags, written one item per line, are no change.
    expect(harnessBody({ ...values, extra_flags: "--add-dir\n/data/workspace/lib\n\n--strict-mcp-config\n--effort  high" }, claudeCode)).toBeUndefined();
    expect(harnessBody({ ...values, max_turns: "12", model: " opus ", disallowed_tools: "WebFetch\n" }, claudeCode)).toEqual({
      max_turns: 12,
      model: "opus",
      disallowed_tools: ["WebFetch"],
    });
    // Not a whole number: sent as typed, for the API to name.
    expect(harnessBody({ ...values, max_turns: "lots" }, claudeCode)).toEqual({ max_turns: "lots" });
    // A new agent sends what differs from the defaults only.
    expect(harnessBody(harnessValuesOf(undefined), null)).toBeUndefined();
    expect(harnessBody({ ...harnessValuesOf(undefined), kind: "claude-code" }, null)).toEqual({ kind: "claude-code" });
  });

  it("TASK-012: the API's messages land at their field, list items with the line they came from", () => {
    const values = { ...harnessValuesOf(claudeCode), allowed_tools: "Edit\n\nBash, Edit", extra_flags: "--strict-mcp-config\n--add-dir /etc" };
    expect(listItems(values.allowed_tools)).toEqual({ items: ["Edit", "Bash, Edit"], lines: [1, 3] });
    expect(flagItems(values.extra_flags)).toEqual({ items: ["--strict-mcp-config", "--add-dir", "/etc"], lines: [1, 2, 2] });
    const errors = {
      name: "too long",
      "task_harness.kind": "claude-code needs a coding agent",
      "task_harness.max_turns": "Too small",
      "task_harness.allowed_tools.1": "must be a tool rule",
      "task_harness.extra_flags.2": "must be a path under /data/workspace",
      "task_harness.extra_flags": "Too big",
      "task_harness.surprise": "unknown field",
    };
    expect(harnessErrors(errors, values)).toEqual({
      kind: "claude-code needs a coding agent; surprise: unknown field",
      max_turns: "Too small",
      allowed_tools: "line 3: must be a tool rule",
      extra_flags: "line 2: must be a path under /data/workspace; Too big",
    });
  });

  it("TASK-012: the section shows for coding agents, and for any agent whose harness is not the platform's", () => {
    const platform = harnessValuesOf(undefined);
    expect(harnessShown(true, platform)).toBe(true);
    expect(harnessShown(false, platform)).toBe(false);
    expect(harnessShown(false, harnessValuesOf(claudeCode))).toBe(true);
  });
});
