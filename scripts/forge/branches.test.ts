/**
 * What best of N asks of the forge over real HTTP, through the platform's own clients: a
 * compare's diffstat (core/github/compare.ts) and a branch's deletion (the forge plugin).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareDiffstat } from "../../core/github/compare";
import { githubForge } from "../../core/github/forge-plugin";
import { type Forge, startForge } from "./server";
import { admin, appJwt, appKeyPair, pushBranch } from "./test-support";

const APP_ID = "4343";
const keys = appKeyPair();
let forge: Forge;
let token: string;
let readOnly: string;

async function mint(installationId: number, permissions?: Record<string, string>): Promise<string> {
  const res = await fetch(`${forge.apiUrl}/app/installations/${installationId}/access_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${appJwt(keys.privateKey, { iss: APP_ID })}`, "content-type": "application/json" },
    body: JSON.stringify({ repositories: ["app"], ...(permissions ? { permissions } : {}) }),
  });
  return ((await res.json()) as { token: string }).token;
}

beforeAll(async () => {
  forge = await startForge({ appId: APP_ID, publicKeyPem: keys.publicKeyPem });
  expect((await admin(forge.adminUrl, "POST", "/repos", { full_name: "acme/app", private: true, files: { "README.md": "one\ntwo\n" } })).status).toBe(201);
  const installation = (await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["app"] })).json.id;
  token = await mint(installation);
  readOnly = await mint(installation, { contents: "read" });
});
afterAll(() => forge?.close());

const branches = async () => ((await admin(forge.adminUrl, "GET", "/repos/acme/app")).json.branches as Array<{ name: string }>).map((b) => b.name).sort();

describe("the forge's branches for best of N", () => {
  it("ISSUE-33: a compare lists the head's files with their additions and deletions; the diffstat sums them", async () => {
    await pushBranch(forge.gitUrl, "acme/app", token, "factory/task/APP-7/a1", 3);
    const options = { apiUrl: forge.apiUrl, token, fullName: "acme/app" };
    expect(await compareDiffstat(options, "main", "factory/task/APP-7/a1")).toEqual({ additions: 3, deletions: 0 });
    const res = await fetch(`${forge.apiUrl}/repos/acme/app/compare/main...factory/task/APP-7/a1`, { headers: { authorization: `token ${token}` } });
    const body = (await res.json()) as { files: Array<{ filename: string; status: string; additions: number }> };
    expect(body.files).toHaveLength(3);
    expect(body.files[0]).toMatchObject({ status: "added", additions: 1, deletions: 0, changes: 1 });
    expect(await compareDiffstat(options, "main", "factory/task/APP-7/a9")).toBeNull();
  });

  it("ISSUE-33: deleteBranch removes a branch (204), a branch already gone is 422 Reference does not exist, read-only tokens are refused", async () => {
    await pushBranch(forge.gitUrl, "acme/app", token, "factory/task/APP-7/a2", 1);
    const refused = await fetch(`${forge.apiUrl}/repos/acme/app/git/refs/heads/factory/task/APP-7/a2`, {
      method: "DELETE",
      headers: { authorization: `token ${readOnly}` },
    });
    expect(refused.status).toBe(403);
    expect(await branches()).toContain("factory/task/APP-7/a2");
    const plugin = githubForge({ apiUrl: forge.apiUrl, token, sleep: async () => {} });
    expect(await plugin.deleteBranch({ fullName: "acme/app", branch: "factory/task/APP-7/a2" })).toBe(true);
    expect(await branches()).not.toContain("factory/task/APP-7/a2");
    const again = await fetch(`${forge.apiUrl}/repos/acme/app/git/refs/heads/factory/task/APP-7/a2`, {
      method: "DELETE",
      headers: { authorization: `token ${token}` },
    });
    expect(again.status).toBe(422);
    expect(((await again.json()) as { message: string }).message).toBe("Reference does not exist");
    expect(await plugin.deleteBranch({ fullName: "acme/app", branch: "factory/task/APP-7/a2" })).toBe(false);
  });
});
