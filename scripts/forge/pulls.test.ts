/**
 * The forge's pull requests over real HTTP, with branches pushed by real git: GitHub's REST
 * shapes and refusals, the GraphQL mutation that marks a draft ready, conversation comments,
 * the admin listing, and installation tokens authorised per repository and permission.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "./server";
import { admin, appJwt, appKeyPair, pushBranch } from "./test-support";

const APP_ID = "31";
const keys = appKeyPair();
let forge: Forge;
let installationId: number;
let token: string;

beforeAll(async () => {
  forge = await startForge({ appId: APP_ID, publicKeyPem: keys.publicKeyPem });
  for (const repo of [
    { full_name: "acme/app", private: true },
    { full_name: "acme/site", private: false },
    { full_name: "acme/other", private: true },
  ]) {
    expect((await admin(forge.adminUrl, "POST", "/repos", repo)).status).toBe(201);
  }
  installationId = (await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["app", "site", "other"] })).json.id;
  token = await mint(["app", "site"]);
});
afterAll(() => forge?.close());

async function mint(
  repositories: string[],
  permissions: Record<string, string> = { contents: "write", pull_requests: "write" },
  at = forge,
  installation = installationId,
): Promise<string> {
  const res = await fetch(`${at.apiUrl}/app/installations/${installation}/access_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${appJwt(keys.privateKey, { iss: APP_ID })}`, "content-type": "application/json" },
    body: JSON.stringify({ repositories, permissions }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

async function api(method: string, path: string, body?: unknown, credential: string | null = token, at = forge) {
  const res = await fetch(`${at.apiUrl}${path}`, {
    method,
    headers: { ...(credential ? { authorization: `token ${credential}` } : {}), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const markReady = (
  variables: unknown,
  query = "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft number } } }",
  credential = token,
) => api("POST", "/graphql", { query, variables }, credential);

describe("pull requests (REST)", () => {
  it("FORGE: a draft pull request opens for a branch ahead of its base, in GitHub's shape", async () => {
    const sha = await pushBranch(forge.gitUrl, "acme/app", token, "feature/one", 2);
    const res = await api("POST", "/repos/acme/app/pulls", { title: "One", head: "feature/one", base: "main", body: "Why", draft: true });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      number: 1,
      state: "open",
      draft: true,
      title: "One",
      body: "Why",
      html_url: `${forge.url}/acme/app/pull/1`,
      head: { ref: "feature/one", sha, label: "acme:feature/one" },
      base: { ref: "main" },
      user: { login: "guilds-forge[bot]", type: "Bot" },
    });
    expect(res.json.node_id).toMatch(/^PR_/);
    expect(typeof res.json.id).toBe("number");
    // The owner-qualified head works the same.
    await pushBranch(forge.gitUrl, "acme/app", token, "feature/two");
    const two = await api("POST", "/repos/acme/app/pulls", { title: "Two", head: "acme:feature/two", base: "main" });
    expect([two.status, two.json.number, two.json.draft]).toEqual([201, 2, false]);
  });

  it("FORGE: 422 Validation Failed when the head has no commits ahead, does not exist, or already has an open pull", async () => {
    await pushBranch(forge.gitUrl, "acme/app", token, "level", 0);
    const level = await api("POST", "/repos/acme/app/pulls", { title: "t", head: "level", base: "main" });
    expect(level.status).toBe(422);
    expect(level.json).toMatchObject({
      message: "Validation Failed",
      errors: [{ resource: "PullRequest", code: "custom", message: "No commits between main and level" }],
    });
    const missing = await api("POST", "/repos/acme/app/pulls", { title: "t", head: "nowhere", base: "main" });
    expect([missing.status, missing.json.errors]).toEqual([422, [{ resource: "PullRequest", field: "head", code: "invalid" }]]);
    const badBase = await api("POST", "/repos/acme/app/pulls", { title: "t", head: "feature/one", base: "nowhere" });
    expect(badBase.json.errors).toEqual([{ resource: "PullRequest", field: "base", code: "invalid" }]);
    const again = await api("POST", "/repos/acme/app/pulls", { title: "again", head: "feature/one", base: "main", draft: true });
    expect(again.status).toBe(422);
    expect(again.json.errors[0].message).toBe("A pull request already exists for acme:feature/one.");
    const fork = await api("POST", "/repos/acme/app/pulls", { title: "t", head: "someone:feature/one", base: "main" });
    expect(fork.status).toBe(422);
    expect((await api("POST", "/repos/acme/app/pulls", { head: "feature/one", base: "main" })).json.errors[0]).toMatchObject({
      field: "title",
      code: "missing_field",
    });
  });

  it("FORGE: lists pulls by head and state, reads one, and edits its title and body", async () => {
    const listed = await api("GET", "/repos/acme/app/pulls?head=acme:feature/one&state=open");
    expect(listed.status).toBe(200);
    expect(listed.json.map((p: { number: number }) => p.number)).toEqual([1]);
    expect((await api("GET", "/repos/acme/app/pulls")).json.map((p: { number: number }) => p.number)).toEqual([2, 1]);
    expect((await api("GET", "/repos/acme/app/pulls?head=acme:nowhere")).json).toEqual([]);
    expect((await api("GET", "/repos/acme/app/pulls?state=closed")).json).toEqual([]);
    const one = await api("GET", "/repos/acme/app/pulls/1");
    expect([one.status, one.json.title, one.json.draft]).toEqual([200, "One", true]);
    const edited = await api("PATCH", "/repos/acme/app/pulls/1", { title: "One, renamed", body: "More" });
    expect([edited.status, edited.json.title, edited.json.body, edited.json.draft]).toEqual([200, "One, renamed", "More", true]);
    expect((await api("GET", "/repos/acme/app/pulls/99")).status).toBe(404);
  });

  it("FORGE: a closed pull frees its head for a new one", async () => {
    await pushBranch(forge.gitUrl, "acme/app", token, "feature/closed");
    const first = await api("POST", "/repos/acme/app/pulls", { title: "a", head: "feature/closed", base: "main" });
    expect((await api("PATCH", `/repos/acme/app/pulls/${first.json.number}`, { state: "closed" })).json.state).toBe("closed");
    const second = await api("POST", "/repos/acme/app/pulls", { title: "b", head: "feature/closed", base: "main" });
    expect(second.status).toBe(201);
    expect((await api("PATCH", `/repos/acme/app/pulls/${first.json.number}`, { state: "open" })).status).toBe(422);
  });
});

describe("authorisation", () => {
  it("FORGE: a token needs the repository and pull_requests: 404 where it cannot see, 403 where it lacks the permission, 401 when bad", async () => {
    const body = { title: "t", head: "feature/one", base: "main" };
    expect((await api("POST", "/repos/acme/other/pulls", body)).status).toBe(404);
    expect((await api("GET", "/repos/acme/other/pulls")).status).toBe(404);
    const contentsOnly = await mint(["app"], { contents: "write" });
    const refused = await api("POST", "/repos/acme/app/pulls", body, contentsOnly);
    expect([refused.status, refused.json.message]).toEqual([403, "Resource not accessible by integration"]);
    expect((await api("GET", "/repos/acme/app/pulls", undefined, contentsOnly)).status).toBe(403);
    const readOnly = await mint(["app"], { pull_requests: "read" });
    expect((await api("GET", "/repos/acme/app/pulls/1", undefined, readOnly)).status).toBe(200);
    expect((await api("PATCH", "/repos/acme/app/pulls/1", { title: "x" }, readOnly)).status).toBe(403);
    expect((await api("POST", "/repos/acme/app/issues/1/comments", { body: "x" }, readOnly)).status).toBe(403);
    expect((await api("GET", "/repos/acme/app/pulls", undefined, "ghs_unknown")).status).toBe(401);
    expect((await api("GET", "/repos/acme/app/pulls", undefined, null)).status).toBe(404);
  });

  it("FORGE: a public repository's pulls read anonymously; writing needs a token that reaches it", async () => {
    await pushBranch(forge.gitUrl, "acme/site", token, "docs");
    expect((await api("POST", "/repos/acme/site/pulls", { title: "Docs", head: "docs", base: "main", draft: true })).status).toBe(201);
    const anonymous = await api("GET", "/repos/acme/site/pulls/1", undefined, null);
    expect([anonymous.status, anonymous.json.draft]).toEqual([200, true]);
    expect((await api("POST", "/repos/acme/site/issues/1/comments", { body: "x" }, null)).status).toBe(401);
    const appOnly = await mint(["app"]);
    expect((await api("GET", "/repos/acme/site/pulls/1", undefined, appOnly)).status).toBe(200);
    expect((await api("PATCH", "/repos/acme/site/pulls/1", { title: "x" }, appOnly)).status).toBe(403);
  });
});

describe("markPullRequestReadyForReview (GraphQL)", () => {
  it("FORGE: marks a draft ready, the id from variables or inline; the admin API shows it", async () => {
    await pushBranch(forge.gitUrl, "acme/app", token, "feature/ready");
    const opened = await api("POST", "/repos/acme/app/pulls", { title: "Ready", head: "feature/ready", base: "main", draft: true });
    const res = await markReady({ id: opened.json.node_id });
    expect(res).toEqual({ status: 200, json: { data: { markPullRequestReadyForReview: { pullRequest: { isDraft: false, number: opened.json.number } } } } });
    expect((await api("GET", `/repos/acme/app/pulls/${opened.json.number}`)).json.draft).toBe(false);
    const { pulls } = (await admin(forge.adminUrl, "GET", "/repos/acme/app/pulls")).json;
    expect(pulls.find((p: { number: number }) => p.number === opened.json.number)).toMatchObject({ draft: false, head: "feature/ready", state: "open" });
    // Inline, and again on a pull that is already ready: the same answer.
    const inline = await markReady(
      {},
      `mutation { markPullRequestReadyForReview(input: {pullRequestId: "${opened.json.node_id}"}) { pullRequest { id isDraft } } }`,
    );
    expect(inline.json.data.markPullRequestReadyForReview.pullRequest).toEqual({ id: opened.json.node_id, isDraft: false });
    const input = await markReady(
      { input: { pullRequestId: opened.json.node_id } },
      "mutation($input: MarkPullRequestReadyForReviewInput!) { markPullRequestReadyForReview(input: $input) { pullRequest { url } } }",
    );
    expect(input.json.data.markPullRequestReadyForReview.pullRequest.url).toBe(opened.json.html_url);
  });

  it("FORGE: GraphQL errors for an unknown id, a pull the token cannot see, and a token without pull_requests write", async () => {
    const unknown = await markReady({ id: "PR_nothing" });
    expect(unknown.status).toBe(200);
    expect(unknown.json).toEqual({
      data: { markPullRequestReadyForReview: null },
      errors: [{ type: "NOT_FOUND", path: ["markPullRequestReadyForReview"], message: "Could not resolve to a node with the global id of 'PR_nothing'." }],
    });
    const nodeId = (await api("GET", "/repos/acme/app/pulls/1")).json.node_id;
    const otherRepo = await mint(["other"]);
    expect((await markReady({ id: nodeId }, undefined, otherRepo)).json.errors[0].type).toBe("NOT_FOUND");
    const readOnly = await mint(["app"], { pull_requests: "read" });
    const forbidden = await markReady({ id: nodeId }, undefined, readOnly);
    expect(forbidden.json.errors[0]).toMatchObject({ type: "FORBIDDEN", message: "Resource not accessible by integration" });
    expect((await api("GET", "/repos/acme/app/pulls/1")).json.draft).toBe(true);
    expect((await api("POST", "/graphql", { query: "{ viewer { login } }" })).json.errors[0].message).toMatch(/markPullRequestReadyForReview/);
    expect((await api("POST", "/graphql", { query: "{ viewer { login } }" }, null)).status).toBe(401);
  });
});

describe("conversation comments", () => {
  it("FORGE: comments on a pull request are listed oldest first, and by the admin API", async () => {
    const posted = await api("POST", "/repos/acme/app/issues/1/comments", { body: "Done: the summary" });
    expect(posted.status).toBe(201);
    expect(posted.json).toMatchObject({
      body: "Done: the summary",
      user: { login: "guilds-forge[bot]" },
      html_url: expect.stringContaining("/acme/app/pull/1#issuecomment-"),
    });
    await api("POST", "/repos/acme/app/issues/1/comments", { body: "Second" });
    const listed = await api("GET", "/repos/acme/app/issues/1/comments");
    expect(listed.json.map((c: { body: string }) => c.body)).toEqual(["Done: the summary", "Second"]);
    const { pulls } = (await admin(forge.adminUrl, "GET", "/repos/acme/app/pulls")).json;
    expect(pulls[0].comments.map((c: { body: string }) => c.body)).toEqual(["Done: the summary", "Second"]);
    expect((await api("POST", "/repos/acme/app/issues/99/comments", { body: "x" })).status).toBe(404);
    expect((await api("POST", "/repos/acme/app/issues/1/comments", { body: "" })).status).toBe(422);
  });
});

describe("persistence", () => {
  it("FORGE: pull requests and their comments survive a restart of a forge with a root", async () => {
    const root = mkdtempSync(join(tmpdir(), "forge-pulls-"));
    try {
      let kept = await startForge({ appId: APP_ID, publicKeyPem: keys.publicKeyPem, root });
      await admin(kept.adminUrl, "POST", "/repos", { full_name: "acme/app", private: true });
      const installation = (await admin(kept.adminUrl, "POST", "/installations", { account: "acme", repositories: ["app"] })).json.id;
      const keptToken = await mint(["app"], undefined, kept, installation);
      await pushBranch(kept.gitUrl, "acme/app", keptToken, "kept");
      const opened = await api("POST", "/repos/acme/app/pulls", { title: "Kept", head: "kept", base: "main", draft: true }, keptToken, kept);
      await api("POST", "/repos/acme/app/issues/1/comments", { body: "noted" }, keptToken, kept);
      await kept.close();
      kept = await startForge({ appId: APP_ID, publicKeyPem: keys.publicKeyPem, root });
      try {
        const again = await api("GET", "/repos/acme/app/pulls/1", undefined, keptToken, kept);
        expect([again.json.node_id, again.json.draft, again.json.comments]).toEqual([opened.json.node_id, true, 1]);
      } finally {
        await kept.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
