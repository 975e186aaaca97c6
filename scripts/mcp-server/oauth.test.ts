import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizationUrl, pkceChallenge, pkceVerifier, type OAuthFacts } from "../../core/mcp/oauth";
import { discover, egressFetch, exchangeCode, OAuthError, refreshTokens, registerClient } from "../../core/mcp/oauth-flow";
import { oauthLayer, PROTECTED_PATH } from "./oauth";

/** The OAuth flow's requests against the local authorization server, over real HTTP on loopback. */

let server: Server;
let base = "";
const layer = oauthLayer({ base: () => base, accessTokenTtlS: 2, autoApprove: true });
const loopback = egressFetch(new Set(["loopback"]));
const REDIRECT = "http://127.0.0.1:9/mcp/callback";

beforeAll(async () => {
  server = createServer((req, res) =>
    layer.handle(req, res, () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: 0, result: {} }));
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function authorise(): Promise<{ facts: OAuthFacts; code: string; verifier: string }> {
  const found = await discover(`${base}${PROTECTED_PATH}`, loopback);
  const client = await registerClient(found.metadata, { redirectUri: REDIRECT, clientName: "Guilds", scope: found.scope }, loopback);
  const facts: OAuthFacts = { ...found.metadata, resource: found.resource, client_id: client.client_id, scope: found.scope, redirect_uri: REDIRECT };
  const verifier = pkceVerifier();
  const url = authorizationUrl(facts, { clientId: client.client_id, redirectUri: REDIRECT, state: "s1", challenge: await pkceChallenge(verifier) });
  const answer = await fetch(url, { redirect: "manual" });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get("location")!);
  expect(back.searchParams.get("state")).toBe("s1");
  return { facts, code: back.searchParams.get("code")!, verifier };
}

describe("OAuth against the local authorization server", () => {
  it("discovers the authorization server from the protected path's 401 and its resource metadata", async () => {
    const found = await discover(`${base}${PROTECTED_PATH}`, loopback);
    expect(found.resource).toBe(`${base}${PROTECTED_PATH}`);
    expect(found.metadata.issuer).toBe(`${base}/oauth`);
    expect(found.metadata.registration_endpoint).toBe(`${base}/oauth/register`);
    expect(found.scope).toBe("tools");
  });

  it("registers a client, exchanges the code with its verifier once, and refreshes with a rotated refresh token", async () => {
    const { facts, code, verifier } = await authorise();
    const tokens = await exchangeCode(facts, {}, { code, verifier, redirectUri: REDIRECT }, loopback, 0);
    expect(tokens.credential.access_token).toBeTruthy();
    expect(tokens.credential.refresh_token).toBeTruthy();
    expect(tokens.expiresAt).toBe(new Date(2000).toISOString());
    const mcp = await fetch(`${base}${PROTECTED_PATH}`, { method: "POST", headers: { authorization: `Bearer ${tokens.credential.access_token}` } });
    expect(mcp.status).toBe(200);
    await expect(exchangeCode(facts, {}, { code, verifier, redirectUri: REDIRECT }, loopback)).rejects.toMatchObject({ kind: "refused" });
    const refreshed = await refreshTokens(facts, tokens.credential, loopback);
    expect(refreshed.credential.refresh_token).not.toBe(tokens.credential.refresh_token);
    await expect(refreshTokens(facts, tokens.credential, loopback)).rejects.toMatchObject({ kind: "refused", message: expect.stringContaining("invalid_grant") });
  });

  it("refuses a code presented with another verifier", async () => {
    const { facts, code } = await authorise();
    await expect(exchangeCode(facts, {}, { code, verifier: pkceVerifier(), redirectUri: REDIRECT }, loopback)).rejects.toBeInstanceOf(OAuthError);
  });

  it("calls no loopback URL unless the platform allows loopback, as for model base URLs", async () => {
    await expect(discover(`${base}${PROTECTED_PATH}`, egressFetch(new Set()))).rejects.toMatchObject({ kind: "egress" });
  });
});
