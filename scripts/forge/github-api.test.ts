/**
 * The forge's GitHub REST endpoints over real HTTP: App JWT checks, installations, and
 * installation tokens limited to repositories (issue 14, "A real forge for tests").
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { type Forge, startForge } from "./server";
import { admin, appJwt, appKeyPair, git, remote, workDir } from "./test-support";

const APP_ID = "4242";
const keys = appKeyPair();
let forge: Forge;
let installationId: number;

beforeAll(async () => {
  forge = await startForge({ appId: APP_ID, publicKeyPem: keys.publicKeyPem });
  for (const name of ["acme/app", "acme/docs", "acme/unlisted"]) {
    expect((await admin(forge.adminUrl, "POST", "/repos", { full_name: name, private: true })).status).toBe(201);
  }
  const installation = await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["app", "docs"] });
  expect(installation.status).toBe(201);
  installationId = installation.json.id;
});
afterAll(() => forge?.close());

async function github(method: string, path: string, options: { jwt?: string; token?: string; body?: unknown } = {}) {
  const jwt = options.jwt ?? appJwt(keys.privateKey, { iss: APP_ID });
  const res = await fetch(`${forge.apiUrl}${path}`, {
    method,
    headers: {
      authorization: options.token ? `token ${options.token}` : `Bearer ${jwt}`,
      accept: "application/vnd.github+json",
      "content-type": "application/json",
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

describe("App JWT", () => {
  it("FORGE: a JWT signed with the App's key reads the installation", async () => {
    const res = await github("GET", `/app/installations/${installationId}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: installationId, app_id: 4242, account: { login: "acme" } });
  });

  it("FORGE: a JWT signed with another key is 401", async () => {
    const other = appKeyPair();
    const res = await github("GET", `/app/installations/${installationId}`, { jwt: appJwt(other.privateKey, { iss: APP_ID }) });
    expect(res.status).toBe(401);
    expect(res.json.message).toMatch(/signature/);
  });

  it("FORGE: a JWT issued by another App id is 401", async () => {
    const res = await github("GET", `/app/installations/${installationId}`, { jwt: appJwt(keys.privateKey, { iss: "9999" }) });
    expect(res.status).toBe(401);
    expect(res.json.message).toMatch(/'iss'/);
  });

  it("FORGE: an expired JWT, or one expiring more than ten minutes ahead, is 401", async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await github("GET", `/app/installations/${installationId}`, {
      jwt: appJwt(keys.privateKey, { iss: APP_ID, iat: now - 700, exp: now - 100 }),
    });
    expect(expired.status).toBe(401);
    expect(expired.json.message).toMatch(/'exp'/);
    const tooLong = await github("GET", `/app/installations/${installationId}`, { jwt: appJwt(keys.privateKey, { iss: APP_ID, iat: now, exp: now + 3600 }) });
    expect(tooLong.status).toBe(401);
  });

  it("FORGE: no JWT, or a malformed one, is 401", async () => {
    expect((await fetch(`${forge.apiUrl}/app/installations/${installationId}`)).status).toBe(401);
    expect((await github("GET", `/app/installations/${installationId}`, { jwt: "not.a.jwt" })).status).toBe(401);
  });
});

describe("installation tokens", () => {
  it("FORGE: mints a token limited to the named repositories with the asked permissions", async () => {
    const res = await github("POST", `/app/installations/${installationId}/access_tokens`, {
      body: { repositories: ["app"], permissions: { contents: "write", pull_requests: "write" } },
    });
    expect(res.status).toBe(201);
    expect(res.json.token).toMatch(/^ghs_/);
    expect(Date.parse(res.json.expires_at)).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(res.json.permissions).toEqual({ contents: "write", pull_requests: "write" });
    expect(res.json.repositories).toEqual([expect.objectContaining({ name: "app", full_name: "acme/app" })]);
    // The token sees only its repositories.
    const listed = await github("GET", "/installation/repositories", { token: res.json.token });
    expect(listed.status).toBe(200);
    expect(listed.json.repositories.map((r: { full_name: string }) => r.full_name)).toEqual(["acme/app"]);
  });

  it("FORGE: 422 naming no repository when one is not reachable by the installation", async () => {
    for (const repositories of [["app", "unlisted"], ["missing"], ["acme/app"]]) {
      const res = await github("POST", `/app/installations/${installationId}/access_tokens`, { body: { repositories } });
      expect(res.status).toBe(422);
      expect(res.json.message).toBe("There is at least one repository that does not exist or is not accessible to the parent installation.");
    }
  });

  it("FORGE: 422 for a permission the installation was not granted", async () => {
    const res = await github("POST", `/app/installations/${installationId}/access_tokens`, {
      body: { repositories: ["app"], permissions: { administration: "write" } },
    });
    expect(res.status).toBe(422);
  });

  it("FORGE: 404 for an unknown installation and for a revoked one", async () => {
    expect((await github("GET", "/app/installations/999999")).status).toBe(404);
    expect((await github("POST", "/app/installations/999999/access_tokens", { body: {} })).status).toBe(404);
    const revoked = await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["app"] });
    const minted = await github("POST", `/app/installations/${revoked.json.id}/access_tokens`, { body: { repositories: ["app"] } });
    expect(minted.status).toBe(201);
    expect((await admin(forge.adminUrl, "DELETE", `/installations/${revoked.json.id}`)).json.revoked).toBe(true);
    expect((await github("GET", `/app/installations/${revoked.json.id}`)).status).toBe(404);
    expect((await github("POST", `/app/installations/${revoked.json.id}/access_tokens`, { body: { repositories: ["app"] } })).status).toBe(404);
    // Its tokens stop working too.
    expect((await github("GET", "/installation/repositories", { token: minted.json.token })).status).toBe(401);
  });

  it("FORGE: the admin API lists every minted token and sets their lifetime", async () => {
    expect((await admin(forge.adminUrl, "PUT", "/token-ttl", { seconds: 120 })).status).toBe(200);
    const res = await github("POST", `/app/installations/${installationId}/access_tokens`, { body: { repositories: ["docs"] } });
    expect(Date.parse(res.json.expires_at) - Date.now()).toBeLessThanOrEqual(120_000);
    expect(Date.parse(res.json.expires_at) - Date.now()).toBeGreaterThan(100_000);
    const tokens = (await admin(forge.adminUrl, "GET", "/tokens")).json.tokens as Array<{ token: string; repositories: string[] }>;
    expect(tokens.find((t) => t.token === res.json.token)?.repositories).toEqual(["acme/docs"]);
    await admin(forge.adminUrl, "PUT", "/token-ttl", { seconds: 3600 });
  });

  it("FORGE: a token revoked through DELETE /installation/token stops working", async () => {
    const res = await github("POST", `/app/installations/${installationId}/access_tokens`, { body: { repositories: ["app"] } });
    expect((await fetch(`${forge.apiUrl}/installation/token`, { method: "DELETE", headers: { authorization: `token ${res.json.token}` } })).status).toBe(204);
    expect((await github("GET", "/installation/repositories", { token: res.json.token })).status).toBe(401);
  });
});

describe("compare", () => {
  it("FORGE: GET /repos/{o}/{r}/compare/{base}...{head} answers ahead, behind, identical and diverged as GitHub does", async () => {
    const token = (await github("POST", `/app/installations/${installationId}/access_tokens`, { body: { repositories: ["docs"] } })).json.token as string;
    const dir = workDir();
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    await git(["clone", "--quiet", remote(forge.gitUrl, "acme/docs", token), dir]);
    const base = (await git(["rev-parse", "HEAD"], dir)).trim();
    await git(["commit", "--quiet", "--allow-empty", "-m", "one"], dir);
    await git(["commit", "--quiet", "--allow-empty", "-m", "two"], dir);
    const ahead = (await git(["rev-parse", "HEAD"], dir)).trim();
    await git(["push", "--quiet", "origin", "HEAD:refs/heads/feature"], dir);
    await git(["checkout", "--quiet", "--detach", base], dir);
    await git(["commit", "--quiet", "--allow-empty", "-m", "aside"], dir);
    const aside = (await git(["rev-parse", "HEAD"], dir)).trim();
    await git(["push", "--quiet", "origin", "HEAD:refs/heads/aside"], dir);
    const compare = (basehead: string, withToken: string | null = token) =>
      fetch(`${forge.apiUrl}/repos/acme/docs/compare/${basehead}`, { headers: withToken ? { authorization: `token ${withToken}` } : {} }).then(async (res) => ({
        status: res.status,
        json: (await res.json()) as Record<string, any>,
      }));
    expect((await compare(`${base}...${ahead}`)).json).toMatchObject({ status: "ahead", ahead_by: 2, behind_by: 0, merge_base_commit: { sha: base } });
    expect((await compare(`${ahead}...${base}`)).json).toMatchObject({ status: "behind", ahead_by: 0, behind_by: 2 });
    expect((await compare(`${ahead}...feature`)).json).toMatchObject({ status: "identical" });
    expect((await compare(`feature...${aside}`)).json).toMatchObject({ status: "diverged", ahead_by: 1, behind_by: 2, merge_base_commit: { sha: base } });
    // A commit the forge does not have, a name that is not a revision, a private repository without a token.
    expect((await compare(`${base}...${"1".repeat(40)}`)).status).toBe(404);
    expect((await compare(`${base}...--all`)).status).toBe(404);
    expect((await compare(`${base}...${ahead}`, null)).status).toBe(404);
    expect((await compare(`${base}...${ahead}`, "ghs_forged")).status).toBe(401);
  });
});
