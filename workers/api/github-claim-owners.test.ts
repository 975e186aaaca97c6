import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { openDatabase } from "../../core/db/client";
import { githubConnections } from "../../core/db/schema";
import { approveInstall, authorizeApp, FORGE_ADMIN, forgeAdmin } from "../../test/workerd/github";
import { call, seedGuild } from "../../test/workerd/seed";

/**
 * Only whoever may give an installation away claims it (OP-REPO-6): the account itself for a
 * user's installation, an active owner for an organisation's. GitHub lists an installation for
 * anyone with access to one of its repositories, a read-only outside collaborator included, so
 * seeing it proves nothing. Every refusal reads the same, whether the installation exists or
 * not. The local forge stands in for GitHub; each user's code comes from authorising the App
 * (GitHub's web flow), installing nothing.
 */

const testEnv = env as unknown as Env;

/** An organisation `account` on the forge with a private repository `app`, the App installed on it by its owner. */
async function company(account: string) {
  expect((await forgeAdmin("POST", "/repos", { full_name: `${account}/app`, private: true })).status).toBe(201);
  const owner = `${account}-owner`;
  return { installationId: (await approveInstall(FORGE_ADMIN, { account, user: owner, repositories: ["app"] })).installation_id, owner };
}

/** The organisation of `token` claims the installation with a code of `user`. */
async function claimAs(token: string, installationId: number, user: string) {
  const { state } = (await call("POST", "/api/github/claims", { token })).json as { state: string };
  const code = await authorizeApp(FORGE_ADMIN, user);
  return call("POST", "/api/github/connections", { token, body: { installation_id: installationId, code, state } });
}

/** Every connection row of the installation, whichever organisation's. */
async function rows(installationId: number) {
  const { db, close } = openDatabase(testEnv);
  try {
    return await db.select().from(githubConnections).where(eq(githubConnections.installationId, installationId));
  } finally {
    await close();
  }
}

const refused = (res: { status: number; json: any }, account: string) => {
  expect(res.status, JSON.stringify(res.json)).toBe(422);
  expect(res.json.error).toMatchObject({ code: "github.installation_refused", details: { field: "installation_id" } });
  expect(JSON.stringify(res.json)).not.toContain(account);
};

describe("only an installation's owner claims it (OP-REPO-6)", () => {
  let mallory: { token: string };
  let ours: { token: string };
  beforeAll(async () => {
    mallory = await seedGuild("Owners Mallory");
    ours = await seedGuild("Owners Corp");
  });

  it("OP-REPO-6: a read-only outside collaborator of an organisation's repository is refused 422 github.installation_refused; no connection is written", async () => {
    const { installationId } = await company("owners-acme");
    expect((await forgeAdmin("PUT", "/repos/owners-acme/app/collaborators/acme-reader", { permission: "read" })).status).toBe(200);
    refused(await claimAs(mallory.token, installationId, "acme-reader"), "owners-acme");
    expect(await rows(installationId)).toEqual([]);
  });

  it("OP-REPO-6: an organisation member who is not an owner, an owner not yet active and a repository admin are refused", async () => {
    const { installationId } = await company("owners-beta");
    await forgeAdmin("PUT", "/orgs/owners-beta/memberships/beta-member", { role: "member" });
    await forgeAdmin("PUT", "/orgs/owners-beta/memberships/beta-invited", { role: "admin", state: "pending" });
    await forgeAdmin("PUT", "/repos/owners-beta/app/collaborators/beta-admin", { permission: "admin" });
    for (const user of ["beta-member", "beta-invited", "beta-admin"]) refused(await claimAs(mallory.token, installationId, user), "owners-beta");
    expect(await rows(installationId)).toEqual([]);
  });

  it("OP-REPO-6: the organisation's owner is accepted", async () => {
    const { installationId, owner } = await company("owners-gamma");
    const res = await claimAs(ours.token, installationId, owner);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toMatchObject({ installation_id: installationId, account_login: "owners-gamma", disconnected_at: null });
    expect((await rows(installationId)).map((r) => r.id)).toEqual([res.json.id]);
  });

  it("OP-REPO-6: a user's installation is claimed by that user; a collaborator with write on its repository is refused", async () => {
    expect((await forgeAdmin("POST", "/repos", { full_name: "owners-solo/app", private: true })).status).toBe(201);
    const { installation_id: installationId } = await approveInstall(FORGE_ADMIN, { account: "owners-solo", repositories: ["app"] });
    await forgeAdmin("PUT", "/repos/owners-solo/app/collaborators/solo-friend", { permission: "write" });
    refused(await claimAs(mallory.token, installationId, "solo-friend"), "owners-solo");
    expect(await rows(installationId)).toEqual([]);
    const own = await claimAs(ours.token, installationId, "owners-solo");
    expect(own.status, JSON.stringify(own.json)).toBe(201);
    expect(own.json.account_login).toBe("owners-solo");
  });

  it("OP-REPO-6: a refusal for an installation that does not exist reads exactly like one for an installation that exists", async () => {
    const { installationId } = await company("owners-delta");
    await forgeAdmin("PUT", "/repos/owners-delta/app/collaborators/delta-reader", { permission: "read" });
    const seen = await claimAs(mallory.token, installationId, "delta-reader");
    const unseen = await claimAs(mallory.token, installationId, "delta-stranger");
    const missing = await claimAs(mallory.token, 987_654_321, "delta-reader");
    refused(seen, "owners-delta");
    for (const other of [unseen, missing]) expect({ status: other.status, json: other.json }).toEqual({ status: seen.status, json: seen.json });
    expect(JSON.stringify(seen.json)).not.toContain(String(installationId));
  });
});
