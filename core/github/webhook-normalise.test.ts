import { describe, expect, it } from "vitest";
import { deliveryFacts, forgeEventOf, orderKey } from "./webhook-normalise";

/**
 * Payloads shaped as GitHub's webhook documentation shows them (trimmed of fields the
 * platform does not read, which GitHub sends in their hundreds).
 */
const repository = { id: 1296269, node_id: "MDEwOlJlcG9zaXRvcnkxMjk2MjY5", name: "Hello-World", full_name: "octocat/Hello-World", private: false };
const installation = { id: 2311213, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMjMxMTIxMw==" };
const sender = { login: "octocat", id: 1, type: "User", site_admin: false };
const issue = {
  url: "https://api.github.com/repos/octocat/Hello-World/issues/1347",
  html_url: "https://github.com/octocat/Hello-World/issues/1347",
  id: 1,
  number: 1347,
  title: "Found a bug",
  user: sender,
  labels: [{ id: 208045946, name: "bug", color: "f29513", default: true }],
  state: "open",
  body: "I'm having a problem with this.",
};
const pullRequest = {
  url: "https://api.github.com/repos/octocat/Hello-World/pulls/1347",
  html_url: "https://github.com/octocat/Hello-World/pull/1347",
  number: 1347,
  state: "open",
  title: "Amazing new feature",
  merged: false,
  head: { label: "octocat:new-topic", ref: "new-topic", sha: "6dcb09b5b57875f334f61aebed695e2e4193db5e" },
  base: { label: "octocat:master", ref: "master", sha: "6dcb09b5b57875f334f61aebed695e2e4193db5e" },
};
const common = { repository, installation, sender };

describe("forgeEventOf", () => {
  it("ISSUE-33: issues opened, labeled and edited are issue events with the label just added and all labels", () => {
    const labeled = forgeEventOf("issues", {
      action: "labeled",
      issue: { ...issue, labels: [...issue.labels, { id: 2, name: "agent" }] },
      label: { id: 2, name: "agent" },
      ...common,
    });
    expect(labeled).toEqual({
      event: {
        kind: "issue",
        action: "labeled",
        repository: "octocat/Hello-World",
        installationId: 2311213,
        sender: { login: "octocat", id: 1 },
        number: 1347,
        title: "Found a bug",
        body: "I'm having a problem with this.",
        url: "https://github.com/octocat/Hello-World/issues/1347",
        label: "agent",
        labels: ["bug", "agent"],
      },
    });
    const opened = forgeEventOf("issues", { action: "opened", issue: { ...issue, body: null }, ...common });
    expect(opened).toMatchObject({ event: { kind: "issue", action: "opened", body: "", label: null } });
    expect(forgeEventOf("issues", { action: "edited", changes: { title: { from: "x" } }, issue, ...common })).toMatchObject({ event: { action: "edited" } });
  });

  it("ISSUE-33: an issue comment is on a pull request when the issue carries pull_request", () => {
    const comment = { id: 1362, html_url: "https://github.com/octocat/Hello-World/issues/1347#issuecomment-1362", body: "@builder please fix", user: sender };
    expect(forgeEventOf("issue_comment", { action: "created", issue, comment, ...common })).toEqual({
      event: {
        kind: "issue_comment",
        repository: "octocat/Hello-World",
        installationId: 2311213,
        sender: { login: "octocat", id: 1 },
        number: 1347,
        pull: false,
        title: "Found a bug",
        issueBody: "I'm having a problem with this.",
        issueUrl: "https://github.com/octocat/Hello-World/issues/1347",
        commentId: 1362,
        body: "@builder please fix",
        url: comment.html_url,
      },
    });
    const onPull = { ...issue, pull_request: { url: pullRequest.url, html_url: pullRequest.html_url } };
    expect(forgeEventOf("issue_comment", { action: "created", issue: onPull, comment, ...common })).toMatchObject({ event: { pull: true } });
  });

  it("ISSUE-33: a submitted review is a review event with its state lowercased", () => {
    const review = {
      id: 80,
      body: "Please rename this",
      state: "CHANGES_REQUESTED",
      html_url: "https://github.com/octocat/Hello-World/pull/1347#pullrequestreview-80",
      user: sender,
    };
    expect(forgeEventOf("pull_request_review", { action: "submitted", review, pull_request: pullRequest, ...common })).toMatchObject({
      event: { kind: "review", number: 1347, state: "changes_requested", body: "Please rename this", url: review.html_url, headRef: "new-topic" },
    });
    expect(
      forgeEventOf("pull_request_review", { action: "submitted", review: { ...review, body: null, state: "approved" }, pull_request: pullRequest, ...common }),
    ).toMatchObject({
      event: { state: "approved", body: "" },
    });
  });

  it("ISSUE-33: a review comment carries its file and line (null for an outdated one)", () => {
    const comment = {
      id: 2,
      path: "file1.txt",
      line: 2,
      original_line: 2,
      body: "Off by one here",
      html_url: "https://github.com/octocat/Hello-World/pull/1347#discussion_r2",
      user: sender,
    };
    expect(forgeEventOf("pull_request_review_comment", { action: "created", comment, pull_request: pullRequest, ...common })).toMatchObject({
      event: { kind: "review_comment", number: 1347, body: "Off by one here", path: "file1.txt", line: 2, headRef: "new-topic" },
    });
    expect(
      forgeEventOf("pull_request_review_comment", { action: "created", comment: { ...comment, line: null }, pull_request: pullRequest, ...common }),
    ).toMatchObject({
      event: { line: null },
    });
  });

  it("ISSUE-33: check suites and check runs completed are checks events with the head's branch and pull requests", () => {
    const suite = {
      id: 118578147,
      head_branch: "changes",
      head_sha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
      status: "completed",
      conclusion: "failure",
      pull_requests: [{ url: pullRequest.url, id: 1, number: 2, head: { ref: "changes", sha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821" } }],
    };
    expect(forgeEventOf("check_suite", { action: "completed", check_suite: suite, ...common })).toMatchObject({
      event: { kind: "checks", source: "check_suite", headSha: suite.head_sha, headBranch: "changes", pullNumbers: [2], conclusion: "failure" },
    });
    const run = {
      id: 128620228,
      name: "Octocoders-linter",
      head_sha: suite.head_sha,
      status: "completed",
      conclusion: "success",
      check_suite: { ...suite, head_branch: null },
      pull_requests: [],
    };
    expect(forgeEventOf("check_run", { action: "completed", check_run: run, ...common })).toMatchObject({
      event: { kind: "checks", source: "check_run", headSha: suite.head_sha, headBranch: null, pullNumbers: [], conclusion: "success" },
    });
  });

  it("ISSUE-33: a pull request closed says whether it was merged", () => {
    expect(forgeEventOf("pull_request", { action: "closed", number: 1347, pull_request: { ...pullRequest, merged: true }, ...common })).toMatchObject({
      event: { kind: "pull_closed", number: 1347, merged: true, headRef: "new-topic" },
    });
  });

  it("ISSUE-33: known events and actions the platform does not act on are ignored with a reason", () => {
    expect(forgeEventOf("ping", { zen: "Keep it logically awesome.", hook_id: 1, hook: {} })).toEqual({ ignored: "ping is not acted on" });
    expect(forgeEventOf("issues", { action: "closed", issue, ...common })).toEqual({ ignored: "issues.closed is not acted on" });
    expect(forgeEventOf("pull_request", { action: "opened", pull_request: pullRequest, ...common })).toEqual({
      ignored: "pull_request.opened is not acted on",
    });
    expect(forgeEventOf("pull_request", { action: "synchronize", pull_request: pullRequest, ...common })).toMatchObject({ ignored: expect.any(String) });
    expect(forgeEventOf("check_run", { action: "created", check_run: {}, ...common })).toMatchObject({ ignored: expect.any(String) });
    expect(forgeEventOf("installation", { action: "created", installation, sender })).toMatchObject({ ignored: expect.any(String) });
    // Ignored kinds are not read further: a body lacking fields is still merely ignored.
    expect(forgeEventOf("issue_comment", { action: "deleted" })).toEqual({ ignored: "issue_comment.deleted is not acted on" });
  });

  it("ISSUE-33: events the App does not subscribe to are unknown", () => {
    expect(forgeEventOf("push", { ref: "refs/heads/main", ...common })).toEqual({ unknown: true });
    expect(forgeEventOf("star", { action: "created", ...common })).toEqual({ unknown: true });
  });

  it("ISSUE-33: a body missing what its kind needs names the field", () => {
    const cases: Array<[string, unknown, string]> = [
      ["issues", { action: "opened", issue: { ...issue, number: "1347" }, ...common }, "issue.number"],
      ["issues", { action: "opened", issue, repository, sender }, "installation.id"],
      ["issues", { action: "opened", issue, installation, sender }, "repository.full_name"],
      ["issues", { action: "labeled", issue, ...common }, "label.name"],
      ["issues", { action: "opened", issue: { ...issue, labels: [{ id: 1 }] }, ...common }, "issue.labels.0.name"],
      ["issue_comment", { action: "created", issue, comment: { id: 1, body: "x" }, ...common }, "comment.html_url"],
      ["pull_request_review", { action: "submitted", review: { state: 3 }, pull_request: pullRequest, ...common }, "review.state"],
      [
        "pull_request_review_comment",
        { action: "created", comment: { path: "a", line: 2.5, html_url: "u", body: "" }, pull_request: pullRequest, ...common },
        "comment.line",
      ],
      [
        "check_suite",
        { action: "completed", check_suite: { head_sha: "abc", pull_requests: [{ number: -1 }] }, ...common },
        "check_suite.pull_requests.0.number",
      ],
      ["pull_request", { action: "closed", pull_request: { number: 3 }, ...common }, "pull_request.head.ref"],
      ["issues", { action: "opened", issue, ...common, sender: { login: "x" } }, "sender.id"],
      ["issues", null, ""],
    ];
    for (const [event, body, field] of cases) {
      const got = forgeEventOf(event, body);
      if (field === "") expect(got).toMatchObject({ ignored: expect.any(String) });
      else expect(got, `${event} ${field}`).toMatchObject({ invalid: field, message: expect.stringContaining(field) });
    }
  });
});

describe("deliveryFacts and orderKey", () => {
  it("ISSUE-33: what a delivery list row shows is read leniently", () => {
    expect(deliveryFacts({ action: "closed", issue, ...common })).toEqual({
      action: "closed",
      repository: "octocat/Hello-World",
      sender: "octocat",
      installationId: 2311213,
    });
    expect(deliveryFacts({ zen: "x" })).toEqual({ action: null, repository: null, sender: null, installationId: null });
    expect(deliveryFacts(null)).toEqual({ action: null, repository: null, sender: null, installationId: null });
  });

  it("ISSUE-33: deliveries of one pull request share a key, as do those of one head commit", () => {
    const comment = forgeEventOf("issue_comment", {
      action: "created",
      issue: { ...issue, pull_request: {} },
      comment: { id: 1, html_url: "u", body: "b" },
      ...common,
    }) as { event: Parameters<typeof orderKey>[0] };
    const review = forgeEventOf("pull_request_review", {
      action: "submitted",
      review: { state: "approved", html_url: "u" },
      pull_request: pullRequest,
      ...common,
    }) as {
      event: Parameters<typeof orderKey>[0];
    };
    expect(orderKey(comment.event)).toBe("octocat/Hello-World#1347");
    expect(orderKey(review.event)).toBe(orderKey(comment.event));
    const checks = forgeEventOf("check_run", { action: "completed", check_run: { head_sha: "abc", conclusion: "success" }, ...common }) as {
      event: Parameters<typeof orderKey>[0];
    };
    expect(orderKey(checks.event)).toBe("octocat/Hello-World@abc");
  });
});
