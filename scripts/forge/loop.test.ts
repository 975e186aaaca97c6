/**
 * The forge as the platform's GitHub for issue 33, over real HTTP: signed webhooks received
 * by a real local server (the HMAC checked here), replayed unchanged, fired by the admin
 * API's users and by the App's installation token; issues sharing numbers with pull
 * requests; reviews with line comments; collaborator permissions; branches and compare.
 */
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "./server";
import { admin, appJwt, appKeyPair, hookReceiver, isEvent, pushBranch, pushFiles, type ReceivedHook } from "./test-support";

const APP_ID = "3333";
const SECRET = "webhook-secret-of-the-test";
const keys = appKeyPair();
let forge: Forge;
let receiver: Awaited<ReturnType<typeof hookReceiver>>;
let installationId: number;
let token: string;

beforeAll(async () => {
  receiver = await hookReceiver();
  forge = await startForge({
    appId: APP_ID,
    publicKeyPem: keys.publicKeyPem,
    webhook: { url: receiver.url, secret: SECRET },
    ci: { enabled: false },
    log: () => {},
  });
  for (const full_name of ["acme/app", "acme/lonely"]) expect((await admin(forge.adminUrl, "POST", "/repos", { full_name, private: true })).status).toBe(201);
  await admin(forge.adminUrl, "PUT", "/orgs/acme/memberships/boss", { role: "admin" });
  for (const [user, permission] of [
    ["writer", "write"],
    ["reader", "read"],
    ["keeper", "maintain"],
    ["triager", "triage"],
  ]) {
    expect((await admin(forge.adminUrl, "PUT", `/repos/acme/app/collaborators/${user}`, { permission })).status).toBe(200);
  }
  installationId = (await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["app"] })).json.id;
  token = await mint();
});
afterAll(async () => {
  await forge?.close();
  await receiver?.close();
});

async function mint(permissions?: Record<string, string>): Promise<string> {
  const res = await fetch(`${forge.apiUrl}/app/installations/${installationId}/access_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${appJwt(keys.privateKey, { iss: APP_ID })}`, "content-type": "application/json" },
    body: JSON.stringify({ repositories: ["app"], ...(permissions ? { permissions } : {}) }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

async function api(method: string, path: string, body?: unknown, credential: string | null = token) {
  const res = await fetch(`${forge.apiUrl}${path}`, {
    method,
    headers: { ...(credential ? { authorization: `token ${credential}` } : {}), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const hmac = (body: string) => `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
const about = (number: number) => (hook: ReceivedHook) => (hook.json.issue ?? hook.json.pull_request)?.number === number;
const both =
  (...matches: Array<(hook: ReceivedHook) => boolean>) =>
  (hook: ReceivedHook) =>
    matches.every((match) => match(hook));

/** Opens a pull request from a new branch with the App's token; its number. */
async function openPull(branch: string): Promise<number> {
  await pushBranch(forge.gitUrl, "acme/app", token, branch);
  const res = await api("POST", "/repos/acme/app/pulls", { title: `Pull ${branch}`, head: branch, base: "main", body: "Body" });
  expect(res.status).toBe(201);
  return res.json.number;
}

describe("ISSUE-33: webhooks of the local forge", () => {
  it("ISSUE-33: an issue filed with labels fires issues opened then labeled per label, each signed with the secret (HMAC checked) and GitHub's headers", async () => {
    const filed = await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", {
      user: "writer",
      title: "Crash on start",
      body: "Steps…",
      labels: ["agent", "bug"],
    });
    expect(filed.status).toBe(201);
    const number = filed.json.number;
    const opened = await receiver.next(both(isEvent("issues", "opened"), about(number)));
    expect(opened.headers["x-hub-signature-256"]).toBe(hmac(opened.body));
    expect(opened.headers["x-github-delivery"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(opened.headers["user-agent"]).toBe("GitHub-Hookshot/forge");
    expect(opened.headers["content-type"]).toBe("application/json");
    expect(opened.json).toMatchObject({
      action: "opened",
      installation: { id: installationId },
      repository: { full_name: "acme/app", owner: { login: "acme" } },
      sender: { login: "writer", type: "User" },
      issue: { number, title: "Crash on start", body: "Steps…", html_url: `${forge.webUrl}/acme/app/issues/${number}`, user: { login: "writer" } },
    });
    expect(typeof opened.json.sender.id).toBe("number");
    expect(opened.json.issue.labels.map((l: { name: string }) => l.name)).toEqual(["agent", "bug"]);
    expect(opened.json.issue).not.toHaveProperty("pull_request");
    const labeled = [
      await receiver.next(both(isEvent("issues", "labeled"), about(number), (h) => h.json.label.name === "agent")),
      await receiver.next(both(isEvent("issues", "labeled"), about(number), (h) => h.json.label.name === "bug")),
    ];
    for (const hook of labeled) expect(hook.headers["x-hub-signature-256"]).toBe(hmac(hook.body));
    expect(new Set([opened, ...labeled].map((h) => h.headers["x-github-delivery"])).size).toBe(3);
    // In order per repository: opened reaches the URL before its labels.
    expect(receiver.received.indexOf(opened)).toBeLessThan(receiver.received.indexOf(labeled[0]!));
  });

  it("ISSUE-33: a labelled issue later fires issues labeled with the new label only", async () => {
    const number = (await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", { user: "reader", title: "Later", body: "" })).json.number;
    const added = await admin(forge.adminUrl, "POST", `/repos/acme/app/issues/${number}/labels`, { user: "writer", labels: ["agent"] });
    expect(added.json.labels).toEqual(["agent"]);
    const hook = await receiver.next(both(isEvent("issues", "labeled"), about(number)));
    expect(hook.json).toMatchObject({ label: { name: "agent" }, sender: { login: "writer" }, issue: { number, user: { login: "reader" } } });
    await admin(forge.adminUrl, "POST", `/repos/acme/app/issues/${number}/labels`, { user: "writer", labels: ["agent"] });
    await forge.webhooks.idle();
    expect(receiver.received.filter(both(isEvent("issues", "labeled"), about(number)))).toHaveLength(1);
  });

  it("ISSUE-33: replaying a delivery resends the identical body with the same X-GitHub-Delivery and signature; the deliveries list has both, newest first, with the answer's status", async () => {
    const number = (await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", { user: "writer", title: "Replay me", body: "b" })).json.number;
    const first = await receiver.next(both(isEvent("issues", "opened"), about(number)));
    await forge.webhooks.idle();
    const listed = (await admin(forge.adminUrl, "GET", "/deliveries?repository=acme/app&event=issues")).json.deliveries;
    const original = listed.find((d: { guid: string }) => d.guid === first.headers["x-github-delivery"]);
    expect(original).toMatchObject({ event: "issues", action: "opened", repository: "acme/app", status: 200, redelivery: false, body: first.body });
    expect(typeof original.duration_ms).toBe("number");
    expect(listed[0].id).toBeGreaterThanOrEqual(original.id);
    const before = receiver.received.length;
    const replayed = await admin(forge.adminUrl, "POST", `/deliveries/${original.id}/replay`);
    expect(replayed.status).toBe(200);
    expect(replayed.json).toMatchObject({ guid: original.guid, redelivery: true, status: 200, body: first.body });
    const again = await receiver.next((hook) => receiver.received.indexOf(hook) >= before && hook.headers["x-github-delivery"] === original.guid);
    expect(again.body).toBe(first.body);
    expect(again.headers["x-hub-signature-256"]).toBe(first.headers["x-hub-signature-256"]);
    await forge.webhooks.idle();
    const newest = (await admin(forge.adminUrl, "GET", "/deliveries?repository=acme/app")).json.deliveries[0];
    expect(newest).toMatchObject({ guid: original.guid, redelivery: true, status: 200 });
    expect((await admin(forge.adminUrl, "POST", "/deliveries/999999/replay")).status).toBe(404);
  });

  it("ISSUE-33: the answer's status is kept as the receiver gave it, and the secret is never answered", async () => {
    receiver.status = 500;
    try {
      const number = (await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", { user: "writer", title: "Refused", body: "" })).json.number;
      await receiver.next(both(isEvent("issues", "opened"), about(number)));
      await forge.webhooks.idle();
      const delivery = (await admin(forge.adminUrl, "GET", "/deliveries?event=issues")).json.deliveries.find(
        (d: { payload: { issue: { number: number } } }) => d.payload.issue.number === number,
      );
      expect(delivery.status).toBe(500);
    } finally {
      receiver.status = 200;
    }
    const config = await admin(forge.adminUrl, "GET", "/webhook");
    expect(config.json).toEqual({ url: receiver.url, secret_set: true });
    expect(JSON.stringify((await admin(forge.adminUrl, "GET", "/deliveries")).json)).not.toContain(SECRET);
  });

  it("ISSUE-33: a delivery whose connection breaks is sent once more, with the same X-GitHub-Delivery", async () => {
    const seen: string[] = [];
    const flaky = createServer((req, res) => {
      seen.push(String(req.headers["x-github-delivery"]));
      req.resume();
      // The first attempt dies without an answer, as a network error would.
      if (seen.length === 1) req.socket.destroy();
      else req.on("end", () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => flaky.listen(0, "127.0.0.1", () => resolve()));
    const url = `http://127.0.0.1:${(flaky.address() as { port: number }).port}/hooks`;
    await admin(forge.adminUrl, "PUT", "/webhook", { url, secret: SECRET });
    try {
      const number = (await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", { user: "writer", title: "Flaky", body: "" })).json.number;
      await forge.webhooks.idle();
      expect(seen).toHaveLength(2);
      expect(seen[1]).toBe(seen[0]);
      const delivery = (await admin(forge.adminUrl, "GET", `/deliveries/${seen[0]}`)).json;
      expect(delivery).toMatchObject({ guid: seen[0], status: 204, error: null, payload: { issue: { number } } });
    } finally {
      await admin(forge.adminUrl, "PUT", "/webhook", { url: receiver.url, secret: SECRET });
      await new Promise<void>((resolve) => flaky.close(() => resolve()));
    }
  });

  it("ISSUE-33: a repository no installation holds sends no delivery", async () => {
    const filed = await admin(forge.adminUrl, "POST", "/repos/acme/lonely/issues", { user: "writer", title: "Nobody hears", body: "" });
    expect(filed.status).toBe(201);
    await forge.webhooks.idle();
    expect((await admin(forge.adminUrl, "GET", "/deliveries?repository=acme/lonely")).json.deliveries).toEqual([]);
    expect(receiver.received.filter((h) => h.json.repository.full_name === "acme/lonely")).toEqual([]);
  });

  it("ISSUE-33: comments on an issue and on a pull request fire issue_comment created; pull_request is set only for the pull", async () => {
    const issue = (await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", { user: "writer", title: "Talk", body: "" })).json.number;
    const pull = await openPull("talk");
    const onIssue = await admin(forge.adminUrl, "POST", `/repos/acme/app/issues/${issue}/comments`, { user: "reader", body: "@agent please" });
    expect(onIssue.status).toBe(201);
    await admin(forge.adminUrl, "POST", `/repos/acme/app/issues/${pull}/comments`, { user: "writer", body: "On the pull" });
    const a = await receiver.next(both(isEvent("issue_comment", "created"), about(issue)));
    expect(a.json).toMatchObject({
      sender: { login: "reader", type: "User" },
      issue: { number: issue, title: "Talk", html_url: `${forge.webUrl}/acme/app/issues/${issue}` },
      comment: { id: onIssue.json.id, body: "@agent please", user: { login: "reader" } },
    });
    expect(a.json.comment.html_url).toContain(`/acme/app/issues/${issue}#issuecomment-`);
    expect(a.json.issue).not.toHaveProperty("pull_request");
    const shown = await admin(forge.adminUrl, "GET", `/repos/acme/app/issues/${issue}`);
    expect(shown.json).toMatchObject({ number: issue, comments: [{ body: "@agent please", user: { login: "reader" } }] });
    const b = await receiver.next(both(isEvent("issue_comment", "created"), about(pull)));
    expect(b.json.issue.pull_request.url).toBe(`${forge.apiUrl}/repos/acme/app/pulls/${pull}`);
    expect(b.json.comment).toMatchObject({ body: "On the pull", user: { login: "writer" } });
  });

  it("ISSUE-33: opening and closing a pull request with the App's token fire pull_request opened and closed as the bot", async () => {
    const number = await openPull("lifecycle");
    const opened = await receiver.next(both(isEvent("pull_request", "opened"), about(number)));
    const head = (await api("GET", `/repos/acme/app/pulls/${number}`)).json.head.sha;
    expect(opened.json).toMatchObject({
      number,
      sender: { login: "guilds-forge[bot]", type: "Bot" },
      pull_request: {
        number,
        html_url: `${forge.webUrl}/acme/app/pull/${number}`,
        head: { ref: "lifecycle", sha: head },
        base: { ref: "main" },
        merged: false,
        draft: false,
      },
    });
    const sha = await pushFiles(forge.gitUrl, "acme/app", token, "lifecycle", { "more.txt": "more\n" });
    const synchronize = await receiver.next(both(isEvent("pull_request", "synchronize"), about(number)));
    expect(synchronize.json).toMatchObject({ before: head, after: sha, pull_request: { head: { ref: "lifecycle", sha } } });
    expect((await api("PATCH", `/repos/acme/app/pulls/${number}`, { state: "closed" })).status).toBe(200);
    const closed = await receiver.next(both(isEvent("pull_request", "closed"), about(number)));
    expect(closed.json.pull_request).toMatchObject({ number, merged: false, head: { ref: "lifecycle" } });
  });

  it("ISSUE-33: a review with line comments fires pull_request_review submitted (state lowercase) then one pull_request_review_comment per comment; REST lists them with path and line", async () => {
    const number = await openPull("reviewed");
    const head = (await api("GET", `/repos/acme/app/pulls/${number}`)).json.head.sha;
    const review = await admin(forge.adminUrl, "POST", `/repos/acme/app/pulls/${number}/reviews`, {
      user: "writer",
      event: "REQUEST_CHANGES",
      body: "Please fix",
      comments: [
        { path: "src/a.ts", line: 3, body: "Off by one" },
        { path: "src/b.ts", line: 10, body: "Rename" },
      ],
    });
    expect(review.status).toBe(201);
    const submitted = await receiver.next(both(isEvent("pull_request_review", "submitted"), about(number)));
    expect(submitted.json).toMatchObject({
      sender: { login: "writer" },
      review: { id: review.json.id, state: "changes_requested", body: "Please fix", user: { login: "writer" } },
      pull_request: { number, head: { ref: "reviewed", sha: head } },
    });
    expect(submitted.json.review.html_url).toContain(`/acme/app/pull/${number}#pullrequestreview-`);
    const lineOne = await receiver.next(both(isEvent("pull_request_review_comment", "created"), about(number), (h) => h.json.comment.path === "src/a.ts"));
    expect(lineOne.json).toMatchObject({
      comment: { body: "Off by one", path: "src/a.ts", line: 3, user: { login: "writer" } },
      pull_request: { number, head: { ref: "reviewed" } },
    });
    expect(lineOne.json.comment.html_url).toContain(`#discussion_r${lineOne.json.comment.id}`);
    await receiver.next(both(isEvent("pull_request_review_comment", "created"), about(number), (h) => h.json.comment.path === "src/b.ts"));
    const alone = await admin(forge.adminUrl, "POST", `/repos/acme/app/pulls/${number}/comments`, { user: "keeper", body: "Nit", path: "README.md", line: 1 });
    expect(alone.status).toBe(201);
    await receiver.next(both(isEvent("pull_request_review_comment", "created"), about(number), (h) => h.json.comment.body === "Nit"));
    const reviews = await api("GET", `/repos/acme/app/pulls/${number}/reviews`);
    expect(reviews.json.map((r: { state: string; body: string }) => [r.state, r.body])).toEqual([["CHANGES_REQUESTED", "Please fix"]]);
    const comments = await api("GET", `/repos/acme/app/pulls/${number}/comments`);
    expect(comments.json.map((c: { path: string; line: number; body: string }) => [c.path, c.line, c.body])).toEqual([
      ["src/a.ts", 3, "Off by one"],
      ["src/b.ts", 10, "Rename"],
      ["README.md", 1, "Nit"],
    ]);
    // The App reviews too, as its bot.
    const approved = await api("POST", `/repos/acme/app/pulls/${number}/reviews`, { event: "APPROVE", body: "" });
    expect([approved.status, approved.json.state, approved.json.user.login]).toEqual([200, "APPROVED", "guilds-forge[bot]"]);
    const byBot = await receiver.next(both(isEvent("pull_request_review", "submitted"), about(number), (h) => h.json.review.state === "approved"));
    expect(byBot.json.sender).toMatchObject({ login: "guilds-forge[bot]", type: "Bot" });
  });

  it("ISSUE-33: editing and closing an issue fire issues edited (with changes) and closed; merging a pull fires pull_request closed with merged and closes the issue its body names", async () => {
    const number = (await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", { user: "writer", title: "Old title", body: "b" })).json.number;
    const edited = await admin(forge.adminUrl, "PATCH", `/repos/acme/app/issues/${number}`, { user: "writer", title: "New title" });
    expect([edited.status, edited.json.title]).toEqual([200, "New title"]);
    const hook = await receiver.next(both(isEvent("issues", "edited"), about(number)));
    expect(hook.json).toMatchObject({ changes: { title: { from: "Old title" } }, issue: { title: "New title" } });
    const fixed = (await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", { user: "writer", title: "Fixed by a pull", body: "" })).json.number;
    await pushBranch(forge.gitUrl, "acme/app", token, "closes");
    const pull = await api("POST", "/repos/acme/app/pulls", { title: "Fix it", head: "closes", base: "main", body: `Closes #${fixed}` });
    const merged = await admin(forge.adminUrl, "POST", `/repos/acme/app/pulls/${pull.json.number}/merge`, { user: "writer" });
    expect(merged.status).toBe(200);
    const closedPull = await receiver.next(both(isEvent("pull_request", "closed"), about(pull.json.number)));
    expect(closedPull.json.pull_request).toMatchObject({ merged: true, head: { ref: "closes" } });
    const closedIssue = await receiver.next(both(isEvent("issues", "closed"), about(fixed)));
    expect(closedIssue.json.issue.state).toBe("closed");
    expect((await api("GET", "/repos/acme/app/branches/main")).json.commit.sha).toBe(merged.json.sha);
    expect((await api("GET", `/repos/acme/app/pulls/${pull.json.number}`)).json).toMatchObject({ state: "closed", merged: true });
    // The App closes an issue with its token too.
    const byApp = await api("PATCH", `/repos/acme/app/issues/${number}`, { state: "closed" });
    expect([byApp.status, byApp.json.state]).toEqual([200, "closed"]);
    await receiver.next(both(isEvent("issues", "closed"), about(number), (h) => h.json.sender.login === "guilds-forge[bot]"));
  });

  it("ISSUE-33: the admin calls name what is wrong in their input", async () => {
    const noUser = await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", { title: "t" });
    expect([noUser.status, noUser.json.message]).toEqual([422, "user must be a GitHub login"]);
    const noTitle = await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", { user: "writer" });
    expect(noTitle.json.errors).toEqual([{ resource: "Issue", field: "title", code: "missing_field" }]);
    const number = await openPull("bad-input");
    const badEvent = await admin(forge.adminUrl, "POST", `/repos/acme/app/pulls/${number}/reviews`, { user: "writer", event: "LOVE", body: "x" });
    expect(badEvent.json.errors).toEqual([{ resource: "PullRequestReview", field: "event", code: "invalid" }]);
    const badLine = await admin(forge.adminUrl, "POST", `/repos/acme/app/pulls/${number}/comments`, { user: "writer", body: "x", path: "a", line: 0 });
    expect(badLine.json.errors).toEqual([{ resource: "PullRequestReviewComment", field: "line", code: "invalid" }]);
    expect((await admin(forge.adminUrl, "PUT", "/webhook", { url: "ftp://x", secret: "s" })).json.message).toBe("url must be an http(s) URL");
    expect((await admin(forge.adminUrl, "POST", "/repos/acme/app/issues/9999/comments", { user: "writer", body: "x" })).status).toBe(404);
  });
});

describe("ISSUE-33: issues, permissions and branches over the REST API", () => {
  it("ISSUE-33: issues and pull requests share one number sequence; GET /issues/:n answers both, a pull with pull_request set", async () => {
    const first = (await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", { user: "writer", title: "One", body: "" })).json.number;
    const pull = await openPull("numbered");
    const second = (await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", { user: "writer", title: "Two", body: "" })).json.number;
    expect([pull, second]).toEqual([first + 1, first + 2]);
    const issue = await api("GET", `/repos/acme/app/issues/${first}`);
    expect(issue.json).toMatchObject({ number: first, title: "One", state: "open", user: { login: "writer" } });
    expect(issue.json).not.toHaveProperty("pull_request");
    const asIssue = await api("GET", `/repos/acme/app/issues/${pull}`);
    expect(asIssue.json).toMatchObject({ number: pull, pull_request: { html_url: `${forge.webUrl}/acme/app/pull/${pull}` } });
    expect((await api("GET", "/repos/acme/app/issues/99999")).status).toBe(404);
    // The lonely repository counts on its own.
    expect((await admin(forge.adminUrl, "POST", "/repos/acme/lonely/issues", { user: "writer", title: "x" })).json.number).toBe(2);
  });

  it("ISSUE-33: the App comments on an issue and labels it with its token, as its bot, firing the webhooks; without the issues permission it is 403", async () => {
    const number = (await admin(forge.adminUrl, "POST", "/repos/acme/app/issues", { user: "writer", title: "Bot talks", body: "" })).json.number;
    const posted = await api("POST", `/repos/acme/app/issues/${number}/comments`, { body: "Filed ACME-1: http://console/task" });
    expect([posted.status, posted.json.user.login, posted.json.body]).toEqual([201, "guilds-forge[bot]", "Filed ACME-1: http://console/task"]);
    const hook = await receiver.next(both(isEvent("issue_comment", "created"), about(number)));
    expect(hook.json.sender).toMatchObject({ login: "guilds-forge[bot]", type: "Bot" });
    expect(hook.json.comment).toMatchObject({ id: posted.json.id, user: { login: "guilds-forge[bot]" } });
    const listed = await api("GET", `/repos/acme/app/issues/${number}/comments`);
    expect(listed.json.map((c: { body: string }) => c.body)).toEqual(["Filed ACME-1: http://console/task"]);
    const labels = await api("POST", `/repos/acme/app/issues/${number}/labels`, { labels: ["agent"] });
    expect([labels.status, labels.json.map((l: { name: string }) => l.name)]).toEqual([200, ["agent"]]);
    await receiver.next(both(isEvent("issues", "labeled"), about(number), (h) => h.json.sender.login === "guilds-forge[bot]"));
    const pullsOnly = await mint({ contents: "write", pull_requests: "write" });
    expect((await api("POST", `/repos/acme/app/issues/${number}/comments`, { body: "x" }, pullsOnly)).status).toBe(403);
    expect((await api("POST", `/repos/acme/app/issues/${number}/comments`, { body: "" })).status).toBe(422);
  });

  it("ISSUE-33: collaborator permission answers per collaborator as GitHub does (maintain reads write, triage read; owners admin)", async () => {
    const permission = async (user: string) => (await api("GET", `/repos/acme/app/collaborators/${user}/permission`)).json;
    expect(await permission("writer")).toMatchObject({ permission: "write", role_name: "write", user: { login: "writer" } });
    expect(await permission("keeper")).toMatchObject({ permission: "write", role_name: "maintain", user: { login: "keeper" } });
    expect(await permission("triager")).toMatchObject({ permission: "read", role_name: "triage" });
    expect(await permission("reader")).toMatchObject({ permission: "read", role_name: "read" });
    expect(await permission("stranger")).toMatchObject({ permission: "none", role_name: "none", user: { login: "stranger" } });
    expect(await permission("boss")).toMatchObject({ permission: "admin", role_name: "admin" });
    expect(await permission("acme")).toMatchObject({ permission: "admin" });
    await admin(forge.adminUrl, "PUT", "/repos/acme/app/collaborators/stranger", { permission: "write" });
    expect(await permission("stranger")).toMatchObject({ permission: "write" });
    await admin(forge.adminUrl, "PUT", "/repos/acme/app/collaborators/stranger", { permission: null });
  });

  it("ISSUE-33: a branch answers its sha, compare lists the files changed with additions and deletions, and deleting a branch is 204 then 422", async () => {
    const sha = await pushBranch(forge.gitUrl, "acme/app", token, "attempt/a1", 2);
    const branch = await api("GET", "/repos/acme/app/branches/attempt/a1");
    expect(branch).toMatchObject({ status: 200, json: { name: "attempt/a1", commit: { sha } } });
    const compare = await api("GET", "/repos/acme/app/compare/main...attempt/a1");
    expect(compare.json).toMatchObject({ status: "ahead", ahead_by: 2, total_commits: 2 });
    expect(compare.json.files).toEqual([
      { filename: "attempt-a1-0.txt", status: "added", additions: 1, deletions: 0, changes: 1 },
      { filename: "attempt-a1-1.txt", status: "added", additions: 1, deletions: 0, changes: 1 },
    ]);
    expect((await api("DELETE", "/repos/acme/app/git/refs/heads/attempt/a1")).status).toBe(204);
    expect((await api("GET", "/repos/acme/app/branches/attempt/a1")).status).toBe(404);
    const again = await api("DELETE", "/repos/acme/app/git/refs/heads/attempt/a1");
    expect([again.status, again.json.message]).toEqual([422, "Reference does not exist"]);
    const readOnly = await mint({ contents: "read" });
    await pushBranch(forge.gitUrl, "acme/app", token, "attempt/a2");
    expect((await api("DELETE", "/repos/acme/app/git/refs/heads/attempt/a2", undefined, readOnly)).status).toBe(403);
  });
});
