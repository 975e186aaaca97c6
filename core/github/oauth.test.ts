import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { People } from "../../scripts/forge/people-state";
import { type Forge, startForge } from "../../scripts/forge/server";
import { admin, appKeyPair } from "../../scripts/forge/test-support";
import type { GitHubError } from "./client";
import { type GitHubAccount, GitHubOAuth } from "./oauth";

/** The installation claim's GitHub calls against the local forge: install URL, code exchange, the user's installations. */

let forge: Forge;
const oauth = (secret = forge.identity.clientSecret, fetcher?: typeof fetch) =>
  new GitHubOAuth({
    webUrl: forge.webUrl,
    apiUrl: forge.apiUrl,
    slug: forge.identity.slug,
    clientId: forge.identity.clientId,
    clientSecret: secret,
    fetch: fetcher,
  });
const failure = (pending: Promise<unknown>) =>
  pending.then(
    () => expect.fail("resolved"),
    (error: unknown) => error as GitHubError,
  );

beforeAll(async () => {
  forge = await startForge({ appId: "4242", publicKeyPem: appKeyPair().publicKeyPem });
});
afterAll(() => forge?.close());

describe("GitHubOAuth against the forge (OP-REPO-6)", () => {
  it("OP-REPO-6: the install URL is the App's page on GitHub's web base, carrying the state", async () => {
    const url = oauth().installUrl("n0nce.abc.sig-_");
    expect(url).toBe(`${forge.webUrl}/apps/guilds-forge/installations/new?state=n0nce.abc.sig-_`);
    expect((await fetch(url)).status).toBe(200);
  });

  it("OP-REPO-6: a code gives a user token once; the installation is found only among that user's", async () => {
    const alice = (await admin(forge.adminUrl, "POST", "/install", { account: "acme", user: "alice" })).json;
    const other = (await admin(forge.adminUrl, "POST", "/installations", { account: "elsewhere" })).json.id;
    const token = await oauth().exchangeCode(alice.code);
    expect(await oauth().userInstallation(token, alice.installation_id)).toEqual({
      id: alice.installation_id,
      account: { login: "acme", id: People.id("acme"), type: "Organization" },
    });
    expect(await oauth().userInstallation(token, other)).toBeNull();
    const used = await failure(oauth().exchangeCode(alice.code));
    expect(used).toMatchObject({ kind: "code_refused" });
  });

  it("OP-REPO-6: a wrong client secret is unavailable naming the settings, never the secret", async () => {
    const { code } = (await admin(forge.adminUrl, "POST", "/install", { account: "bob" })).json;
    const error = await failure(oauth("wrong-secret-value").exchangeCode(code));
    expect(error.kind).toBe("unavailable");
    expect(error.message).toContain("GITHUB_APP_CLIENT_SECRET");
    expect(error.message).not.toContain("wrong-secret-value");
    expect((await failure(oauth().userInstallation("ghu_forged", 1))).kind).toBe("code_refused");
  });

  it("OP-REPO-6: an installation is administered by its own user, or by an active owner of its organisation; seeing it is not enough", async () => {
    await admin(forge.adminUrl, "POST", "/repos", { full_name: "owned/app", private: true });
    const org = (await admin(forge.adminUrl, "POST", "/install", { account: "owned", user: "chief", repositories: ["app"] })).json.installation_id;
    const solo = (await admin(forge.adminUrl, "POST", "/install", { account: "lone" })).json.installation_id;
    await admin(forge.adminUrl, "PUT", "/orgs/owned/memberships/hand", { role: "member" });
    await admin(forge.adminUrl, "PUT", "/repos/owned/app/collaborators/peeker", { permission: "read" });
    const tokenOf = async (user: string) => oauth().exchangeCode((await admin(forge.adminUrl, "POST", "/authorize", { user })).json.code);
    const claimable = async (user: string, id: number) => oauth().administeredInstallation(await tokenOf(user), id);
    expect(await claimable("chief", org)).toEqual({ id: org, account_login: "owned" });
    expect(await claimable("lone", solo)).toEqual({ id: solo, account_login: "lone" });
    for (const user of ["hand", "peeker"]) {
      expect(await oauth().userInstallation(await tokenOf(user), org), user).not.toBeNull();
      expect(await claimable(user, org), user).toBeNull();
    }
    expect(await claimable("chief", solo)).toBeNull();
    expect(await claimable("chief", 987_654_321)).toBeNull();
  });

  it("OP-REPO-6: any answer but an active owner's membership, or the same user by id, is no; so is a failure or an unknown account type", async () => {
    const answering =
      (answers: Record<string, Response | Error>): typeof fetch =>
      async (input) => {
        const answer = answers[new URL(String(input)).pathname.replace(/^\/api/, "")];
        if (answer instanceof Error) throw answer;
        return answer ?? new Response('{"message":"Not Found"}', { status: 404 });
      };
    const org: GitHubAccount = { login: "acme", id: 7, type: "Organization" };
    const membership = (body: unknown, status = 200) => ({ "/user/memberships/orgs/acme": new Response(JSON.stringify(body), { status }) });
    const administers = (answers: Record<string, Response | Error>, account = org) => oauth(undefined, answering(answers)).administers("ghu_x", account);
    expect(await administers(membership({ role: "admin", state: "active", organization: { id: 7 } }))).toBe(true);
    expect(await administers(membership({ role: "admin", state: "active", organization: { id: 8 } }))).toBe(false);
    expect(await administers(membership({ role: "member", state: "active" }))).toBe(false);
    expect(await administers(membership({ role: "admin", state: "pending" }))).toBe(false);
    expect(await administers(membership({ role: "admin", state: "active" }, 403))).toBe(false);
    expect(await administers({})).toBe(false);
    expect(await administers({ "/user/memberships/orgs/acme": new TypeError("fetch failed") })).toBe(false);
    expect(await administers({ "/user/memberships/orgs/acme": new Response("not json") })).toBe(false);
    const user: GitHubAccount = { login: "Solo", id: 42, type: "User" };
    const me = (body: unknown) => ({ "/user": new Response(JSON.stringify(body)) });
    expect(await administers(me({ login: "solo", id: 42 }), user)).toBe(true);
    // The same login under another id is another user (the account was renamed and the name taken).
    expect(await administers(me({ login: "Solo", id: 43 }), user)).toBe(false);
    expect(await administers(me({ login: "solo" }), { ...user, id: null })).toBe(true);
    expect(await administers(me({ login: "other", id: 42 }), { ...user, type: "Bot" })).toBe(false);
    expect(await administers({ "/user": new TypeError("fetch failed") }, user)).toBe(false);
  });

  it("OP-REPO-6: GitHub's failing answers never reach the error with their body", async () => {
    const leaky = (async () => new Response('{"access_token":"ghu_leaked"}', { status: 500 })) as unknown as typeof fetch;
    const error = await failure(oauth(undefined, leaky).exchangeCode("abc"));
    expect(error).toMatchObject({ kind: "unavailable" });
    expect(error.message).not.toContain("ghu_leaked");
    const down = (async () => {
      throw new TypeError("fetch failed");
    }) as unknown as typeof fetch;
    expect((await failure(oauth(undefined, down).userInstallation("ghu_x", 1))).message).toMatch(/did not answer \S*\/user\/installations: TypeError/);
  });
});
