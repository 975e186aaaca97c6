import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discover as discoverTools } from "../../core/mcp/client";
import { authorizationUrl, type OAuthFacts, pkceChallenge, pkceVerifier } from "../../core/mcp/oauth";
import { discover, egressFetch, exchangeCode, OAuthError, refreshTokens, registerClient } from "../../core/mcp/oauth-flow";
import { PROTECTED_PATH } from "./oauth";
import { type LocalMcpServer, startMcpServer } from "./server";

/** The OAuth flow's requests against the local MCP server's authorization server, over real HTTP on loopback. */

let server: LocalMcpServer;
const allow = new Set(["loopback"] as const);
const loopback = egressFetch(allow);
const REDIRECT = "http://127.0.0.1:9/mcp/callback";
const protectedUrl = () => `${server.url}${PROTECTED_PATH}`;

beforeAll(async () => {
  server = await startMcpServer({ oauth: { accessTokenTtlS: 2, autoApprove: true } });
});
afterAll(() => server.close());

async function authorise(): Promise<{ facts: OAuthFacts; code: string; verifier: string }> {
  const found = await discover(protectedUrl(), loopback);
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

describe("OAuth against the local MCP server's authorization server", () => {
  it("discovers the authorization server from the protected path's 401 and its resource metadata", async () => {
    const found = await discover(protectedUrl(), loopback);
    expect(found.resource).toBe(protectedUrl());
    expect(found.metadata.issuer).toBe(`${server.url}/oauth`);
    expect(found.metadata.registration_endpoint).toBe(`${server.url}/oauth/register`);
    expect(found.scope).toBe("tools");
  });

  it("registers a client, exchanges the code with its verifier once, lists the tools with the token, and refreshes with a rotated refresh token", async () => {
    const { facts, code, verifier } = await authorise();
    const tokens = await exchangeCode(facts, {}, { code, verifier, redirectUri: REDIRECT }, loopback, 0);
    expect(tokens.credential.access_token).toBeTruthy();
    expect(tokens.credential.refresh_token).toBeTruthy();
    expect(tokens.expiresAt).toBe(new Date(2000).toISOString());
    const listed = await discoverTools({ url: protectedUrl(), auth: { kind: "oauth", accessToken: async () => tokens.credential.access_token } }, { allow });
    expect(listed.tools.map((t) => t.name)).toContain("echo");
    await expect(exchangeCode(facts, {}, { code, verifier, redirectUri: REDIRECT }, loopback)).rejects.toMatchObject({ kind: "refused" });
    const refreshed = await refreshTokens(facts, tokens.credential, loopback);
    expect(refreshed.credential.refresh_token).not.toBe(tokens.credential.refresh_token);
    await expect(refreshTokens(facts, tokens.credential, loopback)).rejects.toMatchObject({
      kind: "refused",
      message: expect.stringContaining("invalid_grant"),
    });
  });

  it("refuses a code presented with another verifier, and the protected path without a token", async () => {
    const { facts, code } = await authorise();
    await expect(exchangeCode(facts, {}, { code, verifier: pkceVerifier(), redirectUri: REDIRECT }, loopback)).rejects.toBeInstanceOf(OAuthError);
    const bare = await fetch(protectedUrl(), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toContain("resource_metadata=");
  });

  it("takes its test settings as JSON or as a form", async () => {
    const form = await fetch(`${server.url}/oauth/__settings`, {
      method: "POST",
      body: new URLSearchParams({ access_token_ttl_s: "5", auto_approve: "true" }),
    });
    expect(await form.json()).toEqual({ access_token_ttl_s: 5, auto_approve: true });
    const json = await fetch(`${server.url}/oauth/__settings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ access_token_ttl_s: 2 }),
    });
    expect(await json.json()).toEqual({ access_token_ttl_s: 2, auto_approve: true });
  });

  it("calls no loopback URL unless the platform allows loopback, as for model base URLs", async () => {
    await expect(discover(protectedUrl(), egressFetch(new Set()))).rejects.toMatchObject({ kind: "egress" });
  });
});
