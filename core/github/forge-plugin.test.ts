import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "../../scripts/forge/server";
import { admin, pushBranch } from "../../scripts/forge/test-support";
import { spendLine, withSpendLine } from "../tasks/budget";
import { GitHubApp } from "./client";
import { ForgePluginError, githubForge, graphqlUrl, MAX_BODY_CHARS } from "./forge-plugin";

/** The forge plugin against the local forge, with a token the App mints for the task's repository. */

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const privateKeyPem = privateKey.export({ type: "pkcs1", format: "pem" }) as string;

let forge: Forge;
let installationId: number;
let token: string;
const app = () => new GitHubApp({ apiUrl: forge.apiUrl, appId: "4242", privateKeyPem });
const failure = (pending: Promise<unknown>) =>
  pending.then(
    () => expect.fail("resolved"),
    (error: unknown) => error as ForgePluginError,
  );
const pullsOf = async (fullName: string) => (await admin(forge.adminUrl, "GET", `/repos/${fullName}/pulls`)).json.pulls;

beforeAll(async () => {
  forge = await startForge({ appId: "4242", publicKeyPem: publicKey.export({ type: "spki", format: "pem" }) as string });
  for (const full_name of ["acme/widgets", "acme/gadgets"]) await admin(forge.adminUrl, "POST", "/repos", { full_name, private: true });
  installationId = (await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["widgets", "gadgets"] })).json.id;
  token = (await app().mintRepositoryToken(installationId, "acme/widgets")).token;
});
afterAll(() => forge?.close());

describe("githubForge (TASK-018, TASK-024)", () => {
  it("TASK-018: the first push ahead of the base opens a draft pull request", async () => {
    await pushBranch(forge.gitUrl, "acme/widgets", token, "factory/task/WID-1");
    const plugin = githubForge({ apiUrl: forge.apiUrl, token });
    const pr = await plugin.openDraftPR({ fullName: "acme/widgets", head: "factory/task/WID-1", base: "main", title: "WID-1: Fix it", body: "The task" });
    expect(pr).toEqual({ number: 1, url: `${forge.url}/acme/widgets/pull/1`, nodeId: expect.stringMatching(/^PR_/) });
    expect(await pullsOf("acme/widgets")).toEqual([
      expect.objectContaining({ number: 1, draft: true, state: "open", head: "factory/task/WID-1", base: "main", title: "WID-1: Fix it", body: "The task" }),
    ]);
  });

  it("TASK-018: opening again for the same head returns the open pull request, not a second one", async () => {
    const plugin = githubForge({ apiUrl: `${forge.apiUrl}/`, token });
    const again = await plugin.openDraftPR({ fullName: "acme/widgets", head: "factory/task/WID-1", base: "main", title: "again", body: "" });
    expect(again.number).toBe(1);
    expect((await pullsOf("acme/widgets")).length).toBe(1);
  });

  it("TASK-018: a head level with its base is refused with GitHub's status and reason, never the token", async () => {
    await pushBranch(forge.gitUrl, "acme/widgets", token, "factory/task/WID-2", 0);
    const error = await failure(
      githubForge({ apiUrl: forge.apiUrl, token }).openDraftPR({ fullName: "acme/widgets", head: "factory/task/WID-2", base: "main", title: "t", body: "" }),
    );
    expect(error).toBeInstanceOf(ForgePluginError);
    expect(error.status).toBe(422);
    expect(error.message).toContain("No commits between main and factory/task/WID-2");
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(token);
  });

  it("TASK-024: completion marks the pull request ready and comments the summary", async () => {
    const plugin = githubForge({ apiUrl: forge.apiUrl, token });
    const [pull] = await pullsOf("acme/widgets");
    await plugin.markReady({ fullName: "acme/widgets", number: 1, nodeId: pull.node_id });
    await plugin.comment({ fullName: "acme/widgets", number: 1, body: "Fixed the widget; tests added." });
    const [after] = await pullsOf("acme/widgets");
    expect(after.draft).toBe(false);
    expect(after.comments.map((c: { body: string }) => c.body)).toEqual(["Fixed the widget; tests added."]);
  });

  it("TASK-024: marking ready again, or without the node id, succeeds; an unknown node id fails with GitHub's reason", async () => {
    const plugin = githubForge({ apiUrl: forge.apiUrl, token });
    await plugin.markReady({ fullName: "acme/widgets", number: 1, nodeId: "" });
    await pushBranch(forge.gitUrl, "acme/widgets", token, "factory/task/WID-3");
    const pr = await plugin.openDraftPR({ fullName: "acme/widgets", head: "factory/task/WID-3", base: "main", title: "WID-3", body: "" });
    await plugin.markReady({ fullName: "acme/widgets", number: pr.number, nodeId: "" });
    expect((await pullsOf("acme/widgets")).find((p: { number: number }) => p.number === pr.number).draft).toBe(false);
    await pushBranch(forge.gitUrl, "acme/widgets", token, "factory/task/WID-4");
    const draft = await plugin.openDraftPR({ fullName: "acme/widgets", head: "factory/task/WID-4", base: "main", title: "WID-4", body: "" });
    const error = await failure(plugin.markReady({ fullName: "acme/widgets", number: draft.number, nodeId: "PR_unknown" }));
    expect(error.message).toMatch(/NOT_FOUND: Could not resolve to a node with the global id of 'PR_unknown'/);
  });

  it("TASK-024: a summary longer than GitHub accepts is cut, not refused", async () => {
    await githubForge({ apiUrl: forge.apiUrl, token }).comment({ fullName: "acme/widgets", number: 1, body: "x".repeat(MAX_BODY_CHARS + 10) });
    const [pull] = await pullsOf("acme/widgets");
    const last = pull.comments.at(-1).body as string;
    expect(last.length).toBe(MAX_BODY_CHARS);
    expect(last).toMatch(/cut: longer than GitHub accepts\)$/);
  });

  it("TASK-024: a token that does not reach the repository, a bad token and an unreachable forge fail with the status and no token", async () => {
    const gadgets = { fullName: "acme/gadgets", number: 1, body: "x" };
    const outside = await failure(githubForge({ apiUrl: forge.apiUrl, token }).comment(gadgets));
    expect([outside.status, outside.message]).toEqual([404, expect.stringContaining("HTTP 404 commenting on pull request #1 of acme/gadgets")]);
    expect(outside.message).not.toContain(token);
    const bad = await failure(githubForge({ apiUrl: forge.apiUrl, token: "ghs_revoked" }).comment({ ...gadgets, fullName: "acme/widgets" }));
    expect([bad.status, bad.message]).toEqual([401, expect.stringContaining("Bad credentials")]);
    const down = await failure(
      githubForge({ apiUrl: "http://127.0.0.1:9", token, sleep: async () => {} }).markReady({ fullName: "acme/widgets", number: 1, nodeId: "PR_x" }),
    );
    expect(down.status).toBeNull();
    expect(down.message).not.toContain(token);
  });

  it("TASK-024: a forge that echoes the token in its reason has it removed from the error", async () => {
    const echo = async () => Response.json({ message: `token ${token} is not allowed` }, { status: 403 });
    const error = await failure(githubForge({ apiUrl: forge.apiUrl, token, fetch: echo }).comment({ fullName: "acme/widgets", number: 1, body: "x" }));
    expect(error.status).toBe(403);
    expect(error.message).not.toContain(token);
    expect(error.message).toContain("[token]");
  });

  it("TASK-018: a 5xx or a rate limit is tried again after the wait GitHub asks for; the pull request is opened once", async () => {
    await pushBranch(forge.gitUrl, "acme/widgets", token, "factory/task/WID-5");
    const waits: number[] = [];
    const plugin = githubForge({ apiUrl: forge.apiUrl, token, sleep: async (ms) => void waits.push(ms) });
    await admin(forge.adminUrl, "POST", "/faults", { path: "/repos/acme/widgets/pulls", status: 502, times: 1 });
    await admin(forge.adminUrl, "POST", "/faults", {
      path: "/repos/acme/widgets/pulls",
      status: 403,
      headers: { "retry-after": "2" },
      message: "secondary rate limit",
    });
    const before = (await pullsOf("acme/widgets")).length;
    const pr = await plugin.openDraftPR({ fullName: "acme/widgets", head: "factory/task/WID-5", base: "main", title: "WID-5", body: "" });
    expect(waits).toEqual([500, 2000]);
    const pulls = await pullsOf("acme/widgets");
    expect(pulls.length).toBe(before + 1);
    expect(pulls.at(-1)).toMatchObject({ number: pr.number, head: "factory/task/WID-5", draft: true });
  });

  it("TASK-024: a comment is tried again after a rate limit, never after a 5xx (it may have been posted); a long rate limit fails at once, saying so", async () => {
    const waits: number[] = [];
    const plugin = githubForge({ apiUrl: forge.apiUrl, token, sleep: async (ms) => void waits.push(ms) });
    const comments = async () => (await pullsOf("acme/widgets"))[0].comments.length as number;
    const start = await comments();
    await admin(forge.adminUrl, "POST", "/faults", { path: "/repos/acme/widgets/issues", status: 429, headers: { "retry-after": "1" } });
    await plugin.comment({ fullName: "acme/widgets", number: 1, body: "after the limit" });
    expect(waits).toEqual([1000]);
    expect(await comments()).toBe(start + 1);
    await admin(forge.adminUrl, "POST", "/faults", { path: "/repos/acme/widgets/issues", status: 502 });
    const outage = await failure(plugin.comment({ fullName: "acme/widgets", number: 1, body: "lost" }));
    expect([outage.status, waits.length, await comments()]).toEqual([502, 1, start + 1]);
    const reset = Math.floor(Date.now() / 1000) + 3600;
    await admin(forge.adminUrl, "POST", "/faults", {
      path: "/repos/acme/widgets/issues",
      status: 403,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
      message: "API rate limit exceeded",
    });
    const limited = await failure(plugin.comment({ fullName: "acme/widgets", number: 1, body: "later" }));
    expect(limited.status).toBe(403);
    expect(limited.message).toMatch(/API rate limit exceeded \(rate limited: GitHub asks to wait 3[56]\d\d s\)/);
    expect(waits.length).toBe(1);
  });

  it("TASK-018: a repository whose plan has no draft pull requests gets a ready one, which marking ready leaves as it is", async () => {
    await admin(forge.adminUrl, "POST", "/repos", { full_name: "acme/nodrafts", private: true, draft_pull_requests: false });
    await admin(forge.adminUrl, "POST", `/installations/${installationId}/repositories`, { repository: "nodrafts" });
    const own = (await app().mintRepositoryToken(installationId, "acme/nodrafts")).token;
    await pushBranch(forge.gitUrl, "acme/nodrafts", own, "factory/task/NOD-1");
    const plugin = githubForge({ apiUrl: forge.apiUrl, token: own });
    const pr = await plugin.openDraftPR({ fullName: "acme/nodrafts", head: "factory/task/NOD-1", base: "main", title: "NOD-1", body: "" });
    await plugin.markReady({ fullName: "acme/nodrafts", number: pr.number, nodeId: pr.nodeId });
    expect(await pullsOf("acme/nodrafts")).toEqual([expect.objectContaining({ number: pr.number, draft: false, state: "open" })]);
  });

  it("TASK-024: the GraphQL endpoint derives from GITHUB_API_URL (github.com, GitHub Enterprise, the local forge)", () => {
    expect(graphqlUrl("https://api.github.com")).toBe("https://api.github.com/graphql");
    expect(graphqlUrl("https://ghe.example.com/api/v3/")).toBe("https://ghe.example.com/api/graphql");
    expect(graphqlUrl("http://127.0.0.1:4000/api")).toBe("http://127.0.0.1:4000/api/graphql");
  });
});

describe("githubForge: the pull request's description (issue 33)", () => {
  it("ISSUE-33: the description reads and is replaced in place; the spend line goes in without touching the rest", async () => {
    await pushBranch(forge.gitUrl, "acme/gadgets", (await app().mintRepositoryToken(installationId, "acme/gadgets")).token, "factory/task/GAD-1");
    const plugin = githubForge({ apiUrl: forge.apiUrl, token: (await app().mintRepositoryToken(installationId, "acme/gadgets")).token });
    const pr = await plugin.openDraftPR({ fullName: "acme/gadgets", head: "factory/task/GAD-1", base: "main", title: "GAD-1", body: "Fix the gadget.\n" });
    expect(await plugin.pullBody({ fullName: "acme/gadgets", number: pr.number })).toBe("Fix the gadget.\n");
    const first = withSpendLine(await plugin.pullBody({ fullName: "acme/gadgets", number: pr.number }), spendLine(0.0012, 0.001));
    await plugin.updateBody({ fullName: "acme/gadgets", number: pr.number, body: first });
    const second = withSpendLine(await plugin.pullBody({ fullName: "acme/gadgets", number: pr.number }), spendLine(0.0036, 0.01));
    await plugin.updateBody({ fullName: "acme/gadgets", number: pr.number, body: second });
    const [pull] = (await admin(forge.adminUrl, "GET", "/repos/acme/gadgets/pulls")).json.pulls;
    expect(pull.body).toBe("Fix the gadget.\n\nSpend: $0.0036 of $0.01 budget");
    // A token that cannot reach the repository is refused with the forge's status, never the token.
    const error = await failure(githubForge({ apiUrl: forge.apiUrl, token }).updateBody({ fullName: "acme/gadgets", number: pr.number, body: "x" }));
    expect(error.status).not.toBeNull();
    expect(error.message).not.toContain(token);
  });
});
