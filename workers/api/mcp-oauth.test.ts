import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { openDatabase } from "../../core/db/client";
import { createConnection } from "../../core/db/mcp";
import { mcpOauthStates } from "../../core/db/schema";
import { mintOauthState, OAUTH_STATE_TTL_MS, oauthStateKey, randomNonce } from "../../core/mcp/oauth";
import { call, seedGuild } from "../../test/workerd/seed";

/**
 * OAuth for MCP connections, the routes' refusals: another organisation's connection, a URL
 * the egress rules refuse, a state that is not the caller's or is spent. The whole flow
 * against the local authorization server is in mcp-oauth-flow.test.ts.
 */

const testEnv = env as unknown as Env;

async function connection(
  organisationId: string,
  url: string,
  authKind: "none" | "oauth" = "oauth",
  slug = `c${randomNonce()
    .slice(0, 8)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "x")}`,
) {
  const { db, close } = openDatabase(testEnv);
  try {
    return await createConnection(db, { organisationId, slug, url, authKind });
  } finally {
    await close();
  }
}

const authorize = (token: string, id: string) => call("POST", `/api/mcp/connections/${id}/authorize`, { token });
const callback = (token: string, body: Record<string, unknown>) => call("POST", "/api/mcp/oauth/callback", { token, body });

describe("MCP OAuth routes", () => {
  let ours: { token: string; organisationId: string };
  let theirs: { token: string; organisationId: string };
  beforeAll(async () => {
    ours = await seedGuild("MCP OAuth A");
    theirs = await seedGuild("MCP OAuth B");
  }, 60_000);

  it("another organisation's connection is 404 mcp_connection.not_found, to authorise and to complete", async () => {
    const theirConnection = await connection(theirs.organisationId, "https://mcp.example.com/mcp");
    const res = await authorize(ours.token, theirConnection.id);
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe("mcp_connection.not_found");
    // A state minted for the other organisation's connection is not ours to present.
    const key = await oauthStateKey(testEnv.SECRETS_KEK);
    const state = await mintOauthState(key, {
      organisationId: theirs.organisationId,
      connectionId: theirConnection.id,
      nonce: randomNonce(),
      expiresAt: Date.now() + 60_000,
    });
    const done = await callback(ours.token, { code: "abc", state });
    expect(done.status).toBe(422);
    expect(done.json.error).toMatchObject({ code: "mcp_oauth.state_invalid", details: { field: "state" } });
  });

  it("a connection without OAuth is 409 mcp_connection.not_oauth", async () => {
    const plain = await connection(ours.organisationId, "https://mcp.example.com/mcp", "none");
    const res = await authorize(ours.token, plain.id);
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe("mcp_connection.not_oauth");
  });

  it("a server at an address the egress rules refuse is 422 mcp_oauth.url_refused naming url, with no request made", async () => {
    for (const url of ["http://10.0.0.5/mcp", "http://169.254.169.254/mcp", "http://[::ffff:10.0.0.1]/mcp"]) {
      const row = await connection(ours.organisationId, url);
      const res = await authorize(ours.token, row.id);
      expect(res.status, url).toBe(422);
      expect(res.json.error).toMatchObject({ code: "mcp_oauth.url_refused", details: { field: "url" } });
    }
  });

  it("an altered, expired or malformed state is 422 mcp_oauth.state_invalid and spends nothing", async () => {
    const row = await connection(ours.organisationId, "https://mcp.example.com/mcp");
    const key = await oauthStateKey(testEnv.SECRETS_KEK);
    const good = await mintOauthState(key, {
      organisationId: ours.organisationId,
      connectionId: row.id,
      nonce: randomNonce(),
      expiresAt: Date.now() + OAUTH_STATE_TTL_MS,
    });
    const expired = await mintOauthState(key, { organisationId: ours.organisationId, connectionId: row.id, nonce: randomNonce(), expiresAt: Date.now() - 1 });
    for (const state of [`${good.slice(0, -2)}AA`, expired, "not-a-state"]) {
      const res = await callback(ours.token, { code: "abc", state });
      expect(res.status, state).toBe(422);
      expect(res.json.error.code).toBe("mcp_oauth.state_invalid");
    }
  });

  it("a state is spent once even by two callbacks at the same moment: one gets past it, the other is 409 mcp_oauth.state_used", async () => {
    const row = await connection(ours.organisationId, "https://mcp.example.com/mcp");
    const key = await oauthStateKey(testEnv.SECRETS_KEK);
    const nonce = randomNonce();
    const expiresAt = Date.now() + OAUTH_STATE_TTL_MS;
    const state = await mintOauthState(key, { organisationId: ours.organisationId, connectionId: row.id, nonce, expiresAt });
    const { db, close } = openDatabase(testEnv);
    try {
      const { saveOauthState } = await import("../../core/mcp/oauth-store");
      const { keySetFrom } = await import("../../core/secrets/crypto");
      const keys = await keySetFrom(testEnv.SECRETS_KEK);
      await saveOauthState(db, keys, {
        organisationId: ours.organisationId,
        connectionId: row.id,
        nonce,
        verifier: "v".repeat(43),
        redirectUri: "http://api.test/mcp/callback",
        expiresAt: new Date(expiresAt),
      });
      const answers = await Promise.all([callback(ours.token, { code: "one", state }), callback(ours.token, { code: "two", state })]);
      const used = answers.filter((a) => a.json.error?.code === "mcp_oauth.state_used");
      expect(used).toHaveLength(1);
      expect(used[0]).toMatchObject({ status: 409, json: { error: { details: { field: "state" } } } });
      // The other got past the state, to the code exchange (this connection has no client yet: refused there).
      expect(answers.find((a) => a !== used[0])!.json.error.code).toBe("mcp_oauth.no_client");
      expect((await db.select().from(mcpOauthStates)).filter((r) => r.nonce === nonce)).toHaveLength(0);
      const again = await callback(ours.token, { code: "three", state });
      expect(again.json.error.code).toBe("mcp_oauth.state_used");
    } finally {
      await close();
    }
  });
});
