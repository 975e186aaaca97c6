import { describe, expect, it } from "vitest";
import { conversationMessage, isBot, reviewCommentMessage, reviewMessage, reviewSaysSomething } from "./forge-messages";

const url = "https://github.com/acme/app/pull/4#x";

describe("messages from GitHub to a task's agent", () => {
  it("ISSUE-33: a review names its reviewer and verdict, then its body and link", () => {
    expect(reviewMessage({ login: "alice", state: "changes_requested", body: "Rename it\n", url })).toBe(
      `Review from @alice (changes requested) on the pull request:\n\nRename it\n\n${url}`,
    );
    expect(reviewMessage({ login: "bob", state: "approved", body: "", url })).toBe(`Review from @bob (approved) on the pull request:\n\n${url}`);
  });

  it("ISSUE-33: a review with neither a verdict nor a body says nothing to the agent", () => {
    expect(reviewSaysSomething("commented", "  ")).toBe(false);
    expect(reviewSaysSomething("commented", "Why this?")).toBe(true);
    expect(reviewSaysSomething("approved", "")).toBe(true);
    expect(reviewSaysSomething("changes_requested", "")).toBe(true);
  });

  it("ISSUE-33: a review comment names its file and line; an outdated one its file only", () => {
    expect(reviewCommentMessage({ login: "alice", path: "src/app.ts", line: 12, body: "Off by one", url })).toBe(
      `@alice commented on src/app.ts line 12:\n\nOff by one\n\n${url}`,
    );
    expect(reviewCommentMessage({ login: "alice", path: "src/app.ts", line: null, body: "Still?", url })).toBe(
      `@alice commented on src/app.ts:\n\nStill?\n\n${url}`,
    );
  });

  it("ISSUE-33: a conversation comment names where it was made", () => {
    expect(conversationMessage({ login: "dan", on: "issue #12", body: "@Builder please look", url })).toBe(
      `@dan commented on issue #12:\n\n@Builder please look\n\n${url}`,
    );
  });

  it("ISSUE-33: an app's login ends with [bot]; a person's does not", () => {
    expect(isBot("guilds-platform[bot]")).toBe(true);
    expect(isBot("Dependabot[BOT]")).toBe(true);
    expect(isBot("robot")).toBe(false);
  });
});
