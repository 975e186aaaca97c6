import { describe, expect, it } from "vitest";
import { draftPullRequestBody } from "./pull-request-body";

describe("the draft pull request's body", () => {
  it("ISSUE-33: a task filed from an issue says Closes #<n>, so merging closes the issue", () => {
    expect(draftPullRequestBody({ description: "It fails\n\nIssue: https://x/issues/12", issueNumber: 12 })).toBe(
      "It fails\n\nIssue: https://x/issues/12\n\nCloses #12",
    );
    expect(draftPullRequestBody({ description: "", issueNumber: 3 })).toBe("Closes #3");
  });

  it("ISSUE-33: a task filed in the console has its description as the body, unchanged", () => {
    expect(draftPullRequestBody({ description: "Fix the build", issueNumber: null })).toBe("Fix the build");
  });
});
