/**
 * The forge's side of an installation claim over real HTTP: the install page, the approval
 * that stands in for the user's (and the redirect it answers), the OAuth code exchange and
 * `GET /user/installations` with the user token (OP-REPO-6).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "./server";
import { admin, appKeyPair } from "./test-support";

const SETUP_URL = "http://console.test/github/setup";
let forge: Forge;

beforeAll(async () => {
  forge = await startForge({ appId: "77", publicKeyPem: appKeyPair().publicKeyPem, identity: { setupUrl: SETUP_URL } });
  for (const full_name of ["acme/app", "acme/docs", "mallory/tools"]) await admin(forge.adminUrl, "POST", "/repos", { full_name, private: true });
});
afterAll(() => forge?.close());

async function exchange(code: string, client = { id: forge.identity.clientId, secret: forge.identity.clientSecret }) {
  const res = await fetch(`${forge.webUrl}/login/oauth/access_token`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: client.id, client_secret: client.secret, code }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token?: string; error?: string };
}

async function userInstallations(token: string, query = "") {
  const res = await fetch(`${forge.apiUrl}/user/installations${query}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, json: (await res.json()) as any };
}

describe("installing the App and claiming it (OP-REPO-6)", () => {
  it("OP-REPO-6: the install page answers for the App's slug, showing the state it was opened with", async () => {
    const page = await fetch(`${forge.webUrl}/apps/${forge.identity.slug}/installations/new?state=abc%3Cdef`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("abc&#60;def");
    expect(html).not.toContain("abc<def");
    expect((await fetch(`${forge.webUrl}/apps/another-app/installations/new`)).status).toBe(404);
  });

  it("OP-REPO-6: an approval answers the setup redirect; its code gives a user token once, which lists the installation", async () => {
    const approved = await admin(forge.adminUrl, "POST", "/install", { account: "acme", user: "alice", repositories: ["app"], state: "s1" });
    expect(approved.status).toBe(201);
    const { installation_id, code, setup_action, redirect_url } = approved.json;
    expect(setup_action).toBe("install");
    expect(redirect_url).toBe(`${SETUP_URL}?installation_id=${installation_id}&setup_action=install&code=${code}&state=s1`);
    const { access_token } = await exchange(code);
    expect(access_token).toMatch(/^ghu_/);
    expect(await exchange(code)).toMatchObject({ error: "bad_verification_code" });
    const listed = await userInstallations(access_token!);
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ total_count: 1, installations: [{ id: installation_id, account: { login: "acme" } }] });

    // A second approval on the same account, by another of its owners, updates that installation, as GitHub keeps one per account.
    await admin(forge.adminUrl, "PUT", "/orgs/acme/memberships/bob", { role: "admin" });
    const again = await admin(forge.adminUrl, "POST", "/install", { account: "acme", user: "bob", repositories: ["docs"] });
    expect(again.json).toMatchObject({ installation_id, setup_action: "update", redirect_url: expect.stringContaining("setup_action=update") });
    expect(again.json.redirect_url).not.toContain("state=");
    const installation = (await admin(forge.adminUrl, "GET", `/installations/${installation_id}`)).json;
    expect(installation.repositories).toEqual(["acme/app", "acme/docs"]);
    expect(installation.users).toEqual(["acme", "alice", "bob"]);
  });

  it("OP-REPO-6: another user's token does not list an installation it was not granted; a revoked one is listed to nobody", async () => {
    const acme = (await admin(forge.adminUrl, "POST", "/installations", { account: "acme-two", users: ["alice"] })).json.id;
    const mallory = await admin(forge.adminUrl, "POST", "/install", { account: "mallory", repositories: ["tools"] });
    const token = (await exchange(mallory.json.code)).access_token!;
    const ids = (await userInstallations(token)).json.installations.map((i: { id: number }) => i.id);
    expect(ids).toEqual([mallory.json.installation_id]);
    expect(ids).not.toContain(acme);
    await admin(forge.adminUrl, "DELETE", `/installations/${mallory.json.installation_id}`);
    expect((await userInstallations(token)).json).toEqual({ total_count: 0, installations: [] });
  });

  it("OP-REPO-6: a code with the wrong client secret, an unknown code and a bad user token are refused", async () => {
    const { code } = (await admin(forge.adminUrl, "POST", "/install", { account: "carol" })).json;
    expect(await exchange(code, { id: forge.identity.clientId, secret: "not-the-secret" })).toMatchObject({ error: "incorrect_client_credentials" });
    expect(await exchange("0123456789abcdef0123")).toMatchObject({ error: "bad_verification_code" });
    expect((await userInstallations("ghu_forged")).status).toBe(401);
    expect((await admin(forge.adminUrl, "POST", "/install", { account: "not a login" })).status).toBe(422);
  });

  it("OP-REPO-6: /user/installations pages with per_page and page as GitHub does", async () => {
    for (const account of ["page-a", "page-b", "page-c"]) await admin(forge.adminUrl, "POST", "/installations", { account, users: ["paula"] });
    const { code } = (await admin(forge.adminUrl, "POST", "/install", { account: "page-d", user: "paula" })).json;
    const token = (await exchange(code)).access_token!;
    const first = (await userInstallations(token, "?per_page=3")).json;
    expect(first.total_count).toBe(4);
    expect(first.installations.map((i: any) => i.account.login)).toEqual(["page-a", "page-b", "page-c"]);
    expect((await userInstallations(token, "?per_page=3&page=2")).json.installations.map((i: any) => i.account.login)).toEqual(["page-d"]);
  });
});
