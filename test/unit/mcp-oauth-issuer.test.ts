import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issuerRefusal, signInOrigins } from "../../core/mcp/oauth";
import { discover, egressFetch, exchangeCode } from "../../core/mcp/oauth-flow";
import { allowanceFrom } from "../../core/providers/egress";
import { samePlace, signInText } from "../../web/src/lib/mcp-connections";
import { type FloodServer, json, startFloodServer } from "./flood-server";

/**
 * MCP OAuth's issuer checks over real HTTP: the authorization server metadata must name the
 * issuer the protected resource metadata pointed at (RFC 8414 §3.3), and the authorization
 * response's `iss` must be that issuer (RFC 9207).
 */
describe("EXACT-021: MCP OAuth issuers", () => {
  let server: FloodServer;
  let issuerSaid = "";
  let announcesIss = true;
  const f = egressFetch(allowanceFrom("loopback"));

  beforeAll(async () => {
    server = await startFloodServer((request, _body, response) => {
      const path = new URL(request.url ?? "/", "http://x").pathname;
      if (path === "/mcp") return void json(response, 401, {});
      if (path.startsWith("/.well-known/oauth-protected-resource")) {
        return void json(response, 200, { resource: `${server.url}/mcp`, authorization_servers: [`${server.url}/tenant`] });
      }
      if (path === "/.well-known/oauth-authorization-server/tenant") {
        return void json(response, 200, {
          issuer: issuerSaid,
          authorization_endpoint: "https://accounts.example/authorize",
          token_endpoint: `${server.url}/token`,
          code_challenge_methods_supported: ["S256"],
          authorization_response_iss_parameter_supported: announcesIss,
        });
      }
      if (path === "/token") return void json(response, 200, { access_token: "at", token_type: "Bearer", expires_in: 60 });
      response.writeHead(404).end();
    });
  });
  afterAll(async () => server?.close());

  it("EXACT-021: discovery refuses metadata whose issuer is not the authorization server the resource named (RFC 8414 §3.3), naming both", async () => {
    issuerSaid = "https://accounts.example";
    const error = await discover(`${server.url}/mcp`, f).catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: "discovery",
      message: `The authorization server metadata names issuer https://accounts.example, not ${server.url}/tenant`,
    });
  });

  it("EXACT-021: a matching flow goes through: the issuer, its iss announcement, and the code exchange", async () => {
    issuerSaid = `${server.url}/tenant`;
    announcesIss = true;
    const found = await discover(`${server.url}/mcp`, f);
    expect(found.metadata.issuer).toBe(`${server.url}/tenant`);
    expect(found.metadata.authorization_response_iss_parameter_supported).toBe(true);
    const facts = {
      issuer: found.metadata.issuer,
      resource: found.resource,
      authorization_endpoint: found.metadata.authorization_endpoint,
      token_endpoint: found.metadata.token_endpoint,
      client_id: "c",
      iss_parameter_supported: true,
    };
    expect(issuerRefusal(facts, `${server.url}/tenant`)).toBeNull();
    const tokens = await exchangeCode(facts, {}, { code: "x", verifier: "v", redirectUri: "https://console.example/mcp/callback" }, f);
    expect(tokens.credential.access_token).toBe("at");
    // Where it signs in is not where its tokens come from: both are answered, apart.
    expect(signInOrigins(facts)).toEqual({ issuer: `${server.url}/tenant`, authorization_origin: "https://accounts.example", token_origin: server.url });
  });

  it("EXACT-021: an authorization response naming another issuer is refused, naming both (RFC 9207)", () => {
    const facts = { issuer: "https://auth.example", iss_parameter_supported: false };
    expect(issuerRefusal(facts, "https://evil.example")).toBe(
      'The authorization response names issuer "https://evil.example", not https://auth.example, where the authorisation was started',
    );
    expect(issuerRefusal(facts, "https://auth.example/")).not.toBeNull();
    expect(issuerRefusal(facts, "https://auth.example")).toBeNull();
  });

  it("EXACT-021: a response without iss is refused when the server announces it, taken when it does not (RFC 9207)", () => {
    expect(issuerRefusal({ issuer: "https://auth.example", iss_parameter_supported: true }, undefined)).toBe(
      "The authorization response did not name its issuer (iss), which https://auth.example announces it always does",
    );
    expect(issuerRefusal({ issuer: "https://auth.example", iss_parameter_supported: false }, undefined)).toBeNull();
    expect(issuerRefusal({ issuer: "https://auth.example" }, undefined)).toBeNull();
  });

  it("EXACT-021: the console says where a connection signs in, and the token endpoint's and issuer's origins apart when they differ", () => {
    const same = { issuer: "https://auth.example", authorization_origin: "https://auth.example", token_origin: "https://auth.example" };
    expect(signInText(same)).toEqual({ signsInAt: "https://auth.example", apart: [] });
    const paired = { issuer: "https://evil.example", authorization_origin: "https://accounts.example", token_origin: "https://evil.example" };
    expect(signInText(paired)).toEqual({ signsInAt: "https://accounts.example", apart: ["tokens from https://evil.example", "issuer https://evil.example"] });
    expect(signInText(undefined)).toBeNull();
    expect(samePlace(same, { ...same })).toBe(true);
    expect(samePlace(same, paired)).toBe(false);
    expect(samePlace(undefined, same)).toBe(false);
  });
});
