/**
 * Who is who on the forge, over real HTTP as GitHub answers it (OP-REPO-6): a user token's
 * user, organisation memberships with their role and state, repository collaborators with
 * their permission, and the installations a user sees because of them, a read-only outside
 * collaborator's included (which is why seeing an installation does not make it yours).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { People } from "./people-state";
import { type Forge, startForge } from "./server";
import { ForgeState } from "./state";
import { admin, appJwt, appKeyPair } from "./test-support";

const APP_ID = "4343";
const keys = appKeyPair();
let forge: Forge;
let corp: number;

beforeAll(async () => {
  forge = await startForge({ appId: APP_ID, publicKeyPem: keys.publicKeyPem });
  for (const full_name of ["corp/app", "corp/site", "solo/tool"])
    expect((await admin(forge.adminUrl, "POST", "/repos", { full_name, private: true })).status).toBe(201);
  expect((await admin(forge.adminUrl, "POST", "/repos", { full_name: "corp/open", private: false })).status).toBe(201);
  // The owner installs the App on the organisation: corp becomes one, with them its owner.
  corp = (await admin(forge.adminUrl, "POST", "/install", { account: "corp", user: "boss", repositories: ["app", "site"] })).json.installation_id;
  await admin(forge.adminUrl, "PUT", "/orgs/corp/memberships/staff", { role: "member" });
  await admin(forge.adminUrl, "PUT", "/orgs/corp/memberships/invited", { role: "admin", state: "pending" });
  await admin(forge.adminUrl, "PUT", "/repos/corp/app/collaborators/reader", { permission: "read" });
  await admin(forge.adminUrl, "PUT", "/repos/corp/app/collaborators/triager", { permission: "triage" });
  await admin(forge.adminUrl, "PUT", "/repos/corp/app/collaborators/keeper", { permission: "maintain" });
  await admin(forge.adminUrl, "PUT", "/repos/corp/app/collaborators/staff", { permission: "write" });
});
afterAll(() => forge?.close());

/** A user token of `user`, as the App's web flow and the code exchange give it. */
async function userToken(user: string): Promise<string> {
  const { code } = (await admin(forge.adminUrl, "POST", "/authorize", { user })).json;
  const res = await fetch(`${forge.webUrl}/login/oauth/access_token`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: forge.identity.clientId, client_secret: forge.identity.clientSecret, code }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function get(path: string, token?: string) {
  const res = await fetch(`${forge.apiUrl}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, json: (await res.json()) as any };
}

describe("people on the forge (OP-REPO-6)", () => {
  it("OP-REPO-6: GET /user answers the token's user with an id that does not change; a bad token is 401", async () => {
    const token = await userToken("reader");
    const me = await get("/user", token);
    expect(me).toEqual({ status: 200, json: { login: "reader", id: People.id("reader"), type: "User", site_admin: false } });
    expect((await get("/user", await userToken("reader"))).json.id).toBe(me.json.id);
    expect(People.id("boss")).not.toBe(me.json.id);
    expect((await get("/user", "ghu_forged")).status).toBe(401);
    expect((await get("/user")).status).toBe(401);
  });

  it("OP-REPO-6: GET /user/memberships/orgs/{org} answers an owner's, a member's and a pending one's role and state; 404 for anyone else", async () => {
    const membership = async (user: string, org = "corp") => get(`/user/memberships/orgs/${org}`, await userToken(user));
    expect(await membership("boss")).toMatchObject({
      status: 200,
      json: { role: "admin", state: "active", organization: { login: "corp", id: People.id("corp") }, user: { login: "boss" } },
    });
    expect((await membership("staff")).json).toMatchObject({ role: "member", state: "active" });
    expect((await membership("invited")).json).toMatchObject({ role: "admin", state: "pending" });
    // An outside collaborator is no member; an organisation that does not exist reads the same.
    for (const [user, org] of [
      ["reader", "corp"],
      ["boss", "no-such-org"],
    ] as const) {
      expect(await membership(user, org)).toEqual({ status: 404, json: { message: "Not Found", documentation_url: "https://docs.github.com/rest" } });
    }
    expect((await get("/user/memberships/orgs/corp", "ghu_forged")).status).toBe(401);
  });

  it("OP-REPO-6: GET /repos/{o}/{r}/collaborators/{u}/permission answers each role and its older permission name", async () => {
    const token = await userToken("staff");
    const permission = async (user: string, repo = "corp/app") => (await get(`/repos/${repo}/collaborators/${user}/permission`, token)).json;
    const expected = {
      boss: ["admin", "admin"],
      keeper: ["write", "maintain"],
      staff: ["write", "write"],
      triager: ["read", "triage"],
      reader: ["read", "read"],
      stranger: ["none", "none"],
    };
    for (const [user, [legacy, role]] of Object.entries(expected)) {
      expect(await permission(user), user).toMatchObject({ permission: legacy, role_name: role, user: { login: user, id: People.id(user), role_name: role } });
    }
    // An active member reads the organisation's private repositories (its base role); anyone reads a public one.
    expect(await permission("staff", "corp/site")).toMatchObject({ permission: "read", role_name: "read" });
    expect(await permission("stranger", "corp/open")).toMatchObject({ permission: "read" });
    // A user's own repository is theirs to administer.
    expect((await get("/repos/solo/tool/collaborators/solo/permission", await userToken("solo"))).json).toMatchObject({ permission: "admin" });
  });

  it("OP-REPO-6: the permission of a private repository is 404 to a caller without access, and answered to an installation token reaching it", async () => {
    expect((await get("/repos/corp/app/collaborators/boss/permission", await userToken("stranger"))).status).toBe(404);
    expect((await get("/repos/corp/app/collaborators/boss/permission")).status).toBe(404);
    expect((await get("/repos/corp/missing/collaborators/boss/permission", await userToken("boss"))).status).toBe(404);
    const minted = await fetch(`${forge.apiUrl}/app/installations/${corp}/access_tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${appJwt(keys.privateKey, { iss: APP_ID })}`, "content-type": "application/json" },
      body: JSON.stringify({ repositories: ["app"] }),
    });
    const { token } = (await minted.json()) as { token: string };
    expect((await get("/repos/corp/app/collaborators/reader/permission", token)).json).toMatchObject({ permission: "read" });
    expect((await get("/repos/corp/site/collaborators/reader/permission", token)).status).toBe(404);
  });

  it("OP-REPO-6: /user/installations lists an installation to a read-only outside collaborator and a member, as GitHub does; not to a pending one", async () => {
    const ids = async (user: string) => (await get("/user/installations", await userToken(user))).json.installations.map((i: { id: number }) => i.id);
    for (const user of ["boss", "staff", "reader", "triager"]) expect(await ids(user), user).toContain(corp);
    for (const user of ["invited", "stranger"]) expect(await ids(user), user).not.toContain(corp);
    const [listed] = (await get("/user/installations", await userToken("reader"))).json.installations;
    expect(listed).toMatchObject({ id: corp, account: { login: "corp", id: People.id("corp"), type: "Organization" }, target_type: "Organization" });
    // A user's own installation is a User's.
    const solo = (await admin(forge.adminUrl, "POST", "/install", { account: "solo", repositories: ["tool"] })).json.installation_id;
    const [own] = (await get("/user/installations", await userToken("solo"))).json.installations;
    expect(own).toMatchObject({ id: solo, account: { login: "solo", id: People.id("solo"), type: "User" }, target_id: People.id("solo"), target_type: "User" });
  });

  it("OP-REPO-6: only an owner installs on an organisation: a member, a pending owner and the organisation itself are refused", async () => {
    for (const user of ["staff", "invited", "reader"])
      expect((await admin(forge.adminUrl, "POST", "/install", { account: "corp", user })).status, user).toBe(403);
    expect((await admin(forge.adminUrl, "POST", "/install", { account: "corp" })).status).toBe(422);
    expect((await admin(forge.adminUrl, "POST", "/install", { account: "corp", user: "boss" })).json).toMatchObject({
      installation_id: corp,
      setup_action: "update",
    });
  });

  it("OP-REPO-6: the admin calls check what they set, a collaborator is removed with null, and people survive a restart", async () => {
    expect((await admin(forge.adminUrl, "PUT", "/orgs/corp/memberships/x", { role: "owner" })).status).toBe(422);
    expect((await admin(forge.adminUrl, "PUT", "/orgs/corp/memberships/x", { state: "invited" })).status).toBe(422);
    expect((await admin(forge.adminUrl, "PUT", "/repos/corp/app/collaborators/x", { permission: "push" })).status).toBe(422);
    expect((await admin(forge.adminUrl, "PUT", "/repos/corp/missing/collaborators/x", { permission: "read" })).status).toBe(404);
    await admin(forge.adminUrl, "PUT", "/repos/corp/app/collaborators/leaver", { permission: "write" });
    const saved = ForgeState.fromJSON(JSON.parse(JSON.stringify(forge.state)));
    expect(saved.people.collaborator("corp/app", "leaver")).toBe("write");
    expect(saved.people.membership("corp", "invited")).toEqual({ role: "admin", state: "pending" });
    expect(saved.people.owns("corp", "boss")).toBe(true);
    expect((await admin(forge.adminUrl, "PUT", "/repos/corp/app/collaborators/leaver", { permission: null })).status).toBe(200);
    expect(forge.state.people.collaborator("corp/app", "leaver")).toBeUndefined();
  });
});
