import { describe, expect, it } from "vitest";
import {
  authorizationServerUrls,
  authorizationUrl,
  bearerChallenge,
  mintOauthState,
  OAuthMetadataError,
  oauthStateKey,
  parseAuthorizationServerMetadata,
  parseProtectedResourceMetadata,
  pkceChallenge,
  pkceVerifier,
  protectedResourceUrls,
  randomNonce,
  readOauthState,
  refreshDue,
} from "./oauth";

const KEK = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
const ORG = "0b7c8a4e-6f35-4c1e-9d0a-2f4e5b6c7d8e";
const OTHER = "1c8d9b5f-7a46-4d2f-8e1b-3a5f6c7d8e9f";
const CONN = "2d9e0c6a-8b57-4e3a-9f2c-4b6a7d8e9fa0";

describe("the signed OAuth state", () => {
  it("reads back the connection and nonce for the organisation it was minted for, before it expires", async () => {
    const key = await oauthStateKey(KEK);
    const nonce = randomNonce();
    const state = await mintOauthState(key, { organisationId: ORG, connectionId: CONN, nonce, expiresAt: 2_000 });
    expect(state).not.toContain(ORG);
    expect(await readOauthState(key, state, { organisationId: ORG, now: 1_000 })).toEqual({ connectionId: CONN, nonce, expiresAt: 2_000 });
  });

  it("is refused for another organisation, once expired, altered, or signed with another label's key", async () => {
    const key = await oauthStateKey(KEK);
    const state = await mintOauthState(key, { organisationId: ORG, connectionId: CONN, nonce: randomNonce(), expiresAt: 2_000 });
    expect(await readOauthState(key, state, { organisationId: OTHER, now: 1_000 })).toBeNull();
    expect(await readOauthState(key, state, { organisationId: ORG, now: 2_000 })).toBeNull();
    const otherConnection = state.replace(CONN, OTHER);
    expect(await readOauthState(key, otherConnection, { organisationId: ORG, now: 1_000 })).toBeNull();
    expect(await readOauthState(key, `${state.slice(0, -2)}AA`, { organisationId: ORG, now: 1_000 })).toBeNull();
    expect(await readOauthState(key, "junk", { organisationId: ORG, now: 1_000 })).toBeNull();
    const other = await oauthStateKey(`${KEK.slice(0, -2)}B=`);
    expect(await readOauthState(other, state, { organisationId: ORG, now: 1_000 })).toBeNull();
  });
});

describe("PKCE", () => {
  it("has a 43-character verifier and the S256 challenge of RFC 7636's example", async () => {
    expect(pkceVerifier()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pkceVerifier()).not.toBe(pkceVerifier());
    expect(await pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  });

  it("puts the challenge, method, state and resource in the authorization URL", () => {
    const url = new URL(
      authorizationUrl(
        { authorization_endpoint: "https://auth.example/authorize?tenant=1", resource: "https://mcp.example/mcp", scope: "tools" },
        { clientId: "c1", redirectUri: "https://console.example/mcp/callback", state: "s", challenge: "ch" },
      ),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      tenant: "1",
      response_type: "code",
      client_id: "c1",
      redirect_uri: "https://console.example/mcp/callback",
      state: "s",
      code_challenge: "ch",
      code_challenge_method: "S256",
      resource: "https://mcp.example/mcp",
      scope: "tools",
    });
  });
});

describe("discovery documents", () => {
  it("reads the resource metadata URL and scope of a 401's WWW-Authenticate", () => {
    expect(
      bearerChallenge('Bearer error="invalid_token", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope="a b"'),
    ).toEqual({
      error: "invalid_token",
      resource_metadata: "https://mcp.example/.well-known/oauth-protected-resource/mcp",
      scope: "a b",
    });
    expect(bearerChallenge("Basic realm=x")).toEqual({});
    expect(bearerChallenge(null)).toEqual({});
  });

  it("looks for resource and authorization server metadata where RFC 9728, RFC 8414 and OpenID Connect say", () => {
    expect(protectedResourceUrls("https://mcp.example/v1/mcp/")).toEqual([
      "https://mcp.example/.well-known/oauth-protected-resource/v1/mcp",
      "https://mcp.example/.well-known/oauth-protected-resource",
    ]);
    expect(protectedResourceUrls("https://mcp.example")).toEqual(["https://mcp.example/.well-known/oauth-protected-resource"]);
    expect(authorizationServerUrls("https://auth.example/")).toEqual([
      "https://auth.example/.well-known/oauth-authorization-server",
      "https://auth.example/.well-known/openid-configuration",
    ]);
    expect(authorizationServerUrls("https://auth.example/tenant1")).toEqual([
      "https://auth.example/.well-known/oauth-authorization-server/tenant1",
      "https://auth.example/.well-known/openid-configuration/tenant1",
      "https://auth.example/tenant1/.well-known/openid-configuration",
    ]);
  });

  it("accepts authorization server metadata of the issuer it was looked up for, offering S256", () => {
    const body = {
      issuer: "https://auth.example/",
      authorization_endpoint: "https://auth.example/authorize",
      token_endpoint: "https://auth.example/token",
      code_challenge_methods_supported: ["S256"],
    };
    expect(parseAuthorizationServerMetadata(body, "https://auth.example").token_endpoint).toBe("https://auth.example/token");
    expect(() => parseAuthorizationServerMetadata(body, "https://evil.example")).toThrow(OAuthMetadataError);
    expect(() => parseAuthorizationServerMetadata({ ...body, code_challenge_methods_supported: ["plain"] }, "https://auth.example")).toThrow(/S256/);
    expect(() => parseAuthorizationServerMetadata({ ...body, code_challenge_methods_supported: undefined }, "https://auth.example")).toThrow(/S256/);
    expect(() => parseAuthorizationServerMetadata({ issuer: "https://auth.example" }, "https://auth.example")).toThrow(/token_endpoint/);
  });

  it("accepts resource metadata naming the server (or a prefix of its path), refuses another resource", () => {
    const body = { resource: "https://mcp.example/mcp", authorization_servers: ["https://auth.example"] };
    expect(parseProtectedResourceMetadata(body, "https://mcp.example/mcp").authorization_servers).toEqual(["https://auth.example"]);
    expect(parseProtectedResourceMetadata({ ...body, resource: "https://mcp.example" }, "https://mcp.example/mcp").resource).toBe("https://mcp.example");
    expect(() => parseProtectedResourceMetadata({ ...body, resource: "https://other.example/mcp" }, "https://mcp.example/mcp")).toThrow(OAuthMetadataError);
    expect(() => parseProtectedResourceMetadata({ resource: "https://mcp.example/mcp" }, "https://mcp.example/mcp")).toThrow(/authorization_servers/);
  });
});

describe("refresh timing", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it("refreshes when less than a minute is left or the expiry is past, not before, and never without an expiry", () => {
    expect(refreshDue("2026-01-01T00:00:59Z", now)).toBe(true);
    expect(refreshDue("2025-12-31T23:00:00Z", now)).toBe(true);
    expect(refreshDue("2026-01-01T00:01:01Z", now)).toBe(false);
    expect(refreshDue(null, now)).toBe(false);
    expect(refreshDue("not a date", now)).toBe(true);
  });
});
