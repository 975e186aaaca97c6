import { describe, expect, it } from "vitest";
import { issueTaskDescription, issueTaskTitle, TASK_DESCRIPTION_MAX, TASK_TITLE_MAX, taskPageUrl, tookComment, triggers } from "./issue-task";

describe("a task filed from an issue", () => {
  it("ISSUE-33: the trigger label files a task when an issue opens with it or it is added, compared without case", () => {
    expect(triggers({ action: "opened", label: null, labels: ["bug", "Agent"] }, "agent")).toBe(true);
    expect(triggers({ action: "opened", label: null, labels: ["bug"] }, "agent")).toBe(false);
    expect(triggers({ action: "labeled", label: "AGENT", labels: ["AGENT"] }, "agent")).toBe(true);
    expect(triggers({ action: "labeled", label: "needs agent", labels: ["needs agent"] }, "Needs Agent")).toBe(true);
    // Another label added to an issue that carries the trigger already files nothing new.
    expect(triggers({ action: "labeled", label: "bug", labels: ["agent", "bug"] }, "agent")).toBe(false);
    expect(triggers({ action: "edited", label: null, labels: ["agent"] }, "agent")).toBe(false);
    expect(triggers({ action: "labeled", label: null, labels: [] }, "agent")).toBe(false);
  });

  it("ISSUE-33: the task's title is the issue's on one line within the API's limit; a blank one names the issue", () => {
    expect(issueTaskTitle("  Fix\n the\tbuild  ", 12)).toBe("Fix the build");
    expect(issueTaskTitle(" \n ", 12)).toBe("Issue #12");
    const long = issueTaskTitle("x".repeat(300), 1);
    expect(long).toHaveLength(TASK_TITLE_MAX);
    expect(long.endsWith("…")).toBe(true);
  });

  it("ISSUE-33: the task's description is the issue's body and a line naming the issue, cut to the API's limit", () => {
    const url = "https://github.com/acme/app/issues/12";
    expect(issueTaskDescription("It fails on main\n", url)).toBe(`It fails on main\n\nIssue: ${url}`);
    expect(issueTaskDescription("", url)).toBe(`Issue: ${url}`);
    const long = issueTaskDescription("y".repeat(30_000), url);
    expect(long.length).toBeLessThanOrEqual(TASK_DESCRIPTION_MAX);
    expect(long).toContain("(the issue's body is cut here)");
    expect(long.endsWith(`Issue: ${url}`)).toBe(true);
  });

  it("ISSUE-33: the comment on the issue names each agent, its task's key and the task's page in the console", () => {
    const link = taskPageUrl("https://guilds.example/", "5f0c");
    expect(link).toBe("https://guilds.example/tasks/5f0c");
    expect(tookComment([{ agentName: "Builder", key: "APP-7", link }])).toBe("Builder took this as APP-7: https://guilds.example/tasks/5f0c");
    expect(
      tookComment([
        { agentName: "Builder", key: "APP-7", link: "l1" },
        { agentName: "Fixer", key: "APP-3", link: "l2" },
      ]),
    ).toBe("Builder took this as APP-7: l1\nFixer took this as APP-3: l2");
  });
});
