import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { openDatabase } from "../../core/db/client";
import { githubClaimStates } from "../../core/db/schema";
import { CLAIM_STATE_TTL_MS, claimStateKey, mintClaimState, randomNonce } from "../../core/github/claim-state";
import { approveInstall, claim, FORGE_ADMIN } from "../../test/workerd/github";
import { call, seedGuild } from "../../test/workerd/seed";
import { app } from "../app";

/**
 * Claiming a GitHub App installation (OP-REPO-6): the state is this organisation's and good
 * once, the code is the approving user's, and GitHub must list the installation for that user;
 * one organisation holds an installation at a time. The local forge stands in for GitHub.
 */

const testEnv = env as unknown as Env;
const state = async (token: string) => (await call("POST", "/api/github/claims", { token })).json as { install_url: string; state: string; expires_at: string };
const connect = (token: string, body: Record<string, unknown>) => call("POST", "/api/github/connections", { token, body });
const connections = async (token: string) => (await call("GET", "/api/github/connections", { token })).json.data as Array<{ installation_id: number }>;

describe("claiming an installation (OP-REPO-6)", () => {
  let ours: { token: string; organisationId: string };
  let theirs: { token: string; organisationId: string };
  beforeAll(async () => {
    ours = await seedGuild("Claims A");
    theirs = await seedGuild("Claims B");
  });

  it("OP-REPO-6: the install URL is the App's page with a state that names no organisation, good for ten minutes, not cached", async () => {
    const res = await call("POST", "/api/github/claims", { token: ours.token });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const url = new URL(res.json.install_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${testEnv.GITHUB_WEB_URL}/apps/${testEnv.GITHUB_APP_SLUG}/installations/new`);
    expect(url.searchParams.get("state")).toBe(res.json.state);
    expect(res.json.state).not.toContain(ours.organisationId);
    expect(Date.parse(res.json.expires_at) - Date.now()).toBeGreaterThan(CLAIM_STATE_TTL_MS - 60_000);
    expect(Date.parse(res.json.expires_at) - Date.now()).toBeLessThanOrEqual(CLAIM_STATE_TTL_MS);
  });

  it("OP-REPO-6: an installation id alone, without the redirect's code and state, is 422 naming both", async () => {
    const res = await connect(ours.token, { installation_id: 1001 });
    expect(res.status).toBe(422);
    expect(res.json.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(["code", "state"]);
  });

  it("OP-REPO-6: another organisation's state, a forged one and an expired one are 422 github.state_invalid; nothing is connected", async () => {
    const { state: theirState } = await state(theirs.token);
    const approval = await approveInstall(FORGE_ADMIN, { account: "claim-victim", state: theirState });
    const key = await claimStateKey(testEnv.SECRETS_KEK);
    const expired = await mintClaimState(key, { organisationId: ours.organisationId, nonce: randomNonce(), expiresAt: Date.now() - 1 });
    for (const s of [theirState, `${theirState.slice(0, -2)}AA`, expired]) {
      const res = await connect(ours.token, { installation_id: approval.installation_id, code: approval.code, state: s });
      expect(res.status, s).toBe(422);
      expect(res.json.error).toMatchObject({ code: "github.state_invalid", details: { field: "state" } });
      expect(JSON.stringify(res.json)).not.toContain("claim-victim");
    }
    expect(await connections(ours.token)).toEqual([]);
    // The organisation it was made for still claims with it: the attempts did not spend it.
    const own = await connect(theirs.token, { installation_id: approval.installation_id, code: approval.code, state: theirState });
    expect(own.status).toBe(201);
    expect(own.json.account_login).toBe("claim-victim");
  });

  it("OP-REPO-6: a state is spent once, even by two requests at the same moment: one 201, one 409 github.state_used", async () => {
    const org = await seedGuild("Claims race");
    const { state: s } = await state(org.token);
    const first = await approveInstall(FORGE_ADMIN, { account: "claim-race", user: "racer", state: s });
    const second = await approveInstall(FORGE_ADMIN, { account: "claim-race", user: "racer", state: s });
    const answers = await Promise.all([
      connect(org.token, { installation_id: first.installation_id, code: first.code, state: s }),
      connect(org.token, { installation_id: second.installation_id, code: second.code, state: s }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(answers.find((a) => a.status === 409)!.json.error).toMatchObject({ code: "github.state_used", details: { field: "state" } });
    const { db, close } = openDatabase(testEnv);
    try {
      const nonce = s.split(".")[0]!;
      const rows = (await db.select().from(githubClaimStates)).filter((r) => r.nonce === nonce);
      expect(rows).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it("OP-REPO-6: a code of a user GitHub does not list the installation for is 422 github.installation_refused, without the account", async () => {
    const victim = await approveInstall(FORGE_ADMIN, { account: "claim-owner", user: "owner-user", repositories: [] });
    const { state: s } = await state(theirs.token);
    const mallory = await approveInstall(FORGE_ADMIN, { account: "claim-mallory", state: s });
    const res = await connect(theirs.token, { installation_id: victim.installation_id, code: mallory.code, state: s });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: "github.installation_refused", details: { field: "installation_id" } });
    expect(JSON.stringify(res.json)).not.toContain("claim-owner");
    expect((await connections(theirs.token)).map((c) => c.installation_id)).not.toContain(victim.installation_id);
  });

  it("OP-REPO-6: a wrong or used code is 422 github.code_refused naming code", async () => {
    const { state: s } = await state(ours.token);
    const approval = await approveInstall(FORGE_ADMIN, { account: "claim-codes", state: s });
    const res = await connect(ours.token, { installation_id: approval.installation_id, code: "0123456789abcdef0123", state: s });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: "github.code_refused", details: { field: "code" } });
  });

  it("OP-REPO-6: an installation another organisation holds is 409 github.installation_held, naming neither; it is claimable once that one disconnects", async () => {
    const held = await claim(ours.token, "claim-shared", [], "shared-user");
    expect(held.connection.status).toBe(201);
    const taken = await claim(theirs.token, "claim-shared", [], "shared-user");
    expect(taken.installationId).toBe(held.installationId);
    expect(taken.connection.status).toBe(409);
    expect(taken.connection.json.error).toMatchObject({ code: "github.installation_held", details: { field: "installation_id" } });
    const text = JSON.stringify(taken.connection.json);
    for (const hidden of [ours.organisationId, "Claims A", "claim-shared"]) expect(text).not.toContain(hidden);

    expect((await call("DELETE", `/api/github/connections/${held.connection.json.id}`, { token: ours.token })).status).toBe(200);
    const moved = await claim(theirs.token, "claim-shared", [], "shared-user");
    expect(moved.connection.status).toBe(201);
    // The first holder's row stays disconnected (its repositories fail with repository.token) and cannot come back.
    const back = await claim(ours.token, "claim-shared", [], "shared-user");
    expect(back.connection.status).toBe(409);
    expect(back.connection.json.error.code).toBe("github.installation_held");
  });

  it("OP-REPO-6: two organisations racing for one installation end with exactly one holder", async () => {
    const a = await seedGuild("Race A");
    const b = await seedGuild("Race B");
    await approveInstall(FORGE_ADMIN, { account: "claim-contested", user: "both" });
    const [first, second] = await Promise.all([claim(a.token, "claim-contested", [], "both"), claim(b.token, "claim-contested", [], "both")]);
    expect([first.connection.status, second.connection.status].sort()).toEqual([201, 409]);
    const holders = [...(await connections(a.token)), ...(await connections(b.token))].filter((c) => c.installation_id === first.installationId);
    expect(holders).toHaveLength(1);
  });

  it("OP-REPO-6: without the App's slug and OAuth client the claim routes answer 503 github.not_configured naming them, and list configured: false", async () => {
    const unconfigured = { ...testEnv, GITHUB_APP_CLIENT_SECRET: undefined };
    const send = async (method: string, path: string) => {
      const ctx = createExecutionContext();
      const response = await app.fetch(
        new Request(`http://api.test${path}`, {
          method,
          headers: { authorization: `Bearer ${ours.token}`, "content-type": "application/json" },
          body: method === "POST" ? JSON.stringify({ installation_id: 1, code: "abc", state: "x" }) : undefined,
        }),
        unconfigured,
        ctx,
      );
      const json = (await response.json()) as any;
      await waitOnExecutionContext(ctx);
      return { status: response.status, json };
    };
    for (const path of ["/api/github/claims", "/api/github/connections"]) {
      const { status, json } = await send("POST", path);
      expect(status, path).toBe(503);
      expect(json.error.code).toBe("github.not_configured");
      expect(json.error.message).toContain("GITHUB_APP_CLIENT_SECRET");
    }
    // The console then offers no Connect GitHub.
    expect((await send("GET", "/api/github/connections")).json.configured).toBe(false);
  });
});
