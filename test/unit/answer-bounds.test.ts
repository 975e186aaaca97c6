import { generateKeyPairSync } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GitHubApp } from "../../core/github/client";
import { isAncestorOnForge } from "../../core/github/compare";
import { githubForge } from "../../core/github/forge-plugin";
import { modelSelector } from "../../core/group/history";
import { FORGE_ANSWER_CAP, MCP_ANSWER_CAP, MODEL_ANSWER_CAP, OAUTH_ANSWER_CAP, RANK_ASSET_CAP, SEARCH_ANSWER_CAP } from "../../core/http/answer-caps";
import { call, connect, discover as discoverTools } from "../../core/mcp/client";
import { discover, egressFetch, exchangeCode } from "../../core/mcp/oauth-flow";
import { rankAssetLoader } from "../../core/projection/rank-asset";
import { allowanceFrom } from "../../core/providers/egress";
import { tavilySearch } from "../../core/search/tavily";
import { callModel } from "../../durable-objects/agent/generation/model-call";
import { FLOOD_BYTES, type FloodServer, json, startFloodServer } from "./flood-server";

/**
 * HARDEN-3: every kind of outside answer is read within its cap. Each peer here is a real
 * HTTP server on 127.0.0.1 answering with a 100 MB flood; the reader must fail with an error
 * naming the peer and the cap, soon, and the server must have managed to send little more
 * than the cap (socket buffers aside) before the reader went away.
 */
const allow = allowanceFrom("loopback");
const SECRET = "sk-flood-secret-0123456789";
/** What the kernel's socket buffers and the client's may hold beyond what was read. */
const SLACK = 16 * 1024 * 1024;

let server: FloodServer;
let route: (path: string, method: string, body: string) => "flood-json" | "flood-events" | { status: number; body: unknown } | undefined;

beforeAll(async () => {
  server = await startFloodServer((request, body, response) => {
    const answer = route(new URL(request.url ?? "/", "http://x").pathname, request.method ?? "GET", body);
    if (answer === "flood-json" || answer === "flood-events") return answer;
    if (answer) return void json(response, answer.status, answer.body);
    response.writeHead(404).end();
  });
});
afterAll(async () => server?.close());
afterEach(() => {
  route = () => undefined;
});

/** The flood was cut near the cap: the server sent far less than the 100 MB it had. */
async function cutNear(cap: number, before: number) {
  await server.settled();
  const sent = server.written() - before;
  expect(sent).toBeLessThan(Math.max(4 * cap, cap + SLACK));
  expect(sent).toBeLessThan(FLOOD_BYTES / 2);
}

/** A minimal Streamable HTTP MCP server: JSON answers to initialize, floods where asked. */
function mcpRoute(flood: { method: string; kind: "flood-json" | "flood-events" }) {
  return (path: string, method: string, body: string) => {
    if (path !== "/mcp") return undefined;
    if (method !== "POST") return { status: 405, body: {} };
    const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
    if (message.id === undefined) return { status: 202, body: {} };
    if (message.method === "initialize") {
      return {
        status: 200,
        body: {
          jsonrpc: "2.0",
          id: message.id,
          result: { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "flood", version: "1" } },
        },
      };
    }
    if (message.method === flood.method) return flood.kind;
    return { status: 200, body: { jsonrpc: "2.0", id: message.id, result: { tools: [] } } };
  };
}

describe("HARDEN-3: answers from outside are read within bounds", () => {
  it("EXACT-021 / HARDEN-3: an MCP server flooding tools/list with JSON fails discovery with the cap named, soon", async () => {
    route = mcpRoute({ method: "tools/list", kind: "flood-json" });
    const before = server.written();
    const started = Date.now();
    const error = await discoverTools({ url: `${server.url}/mcp`, auth: { kind: "bearer", token: SECRET } }, { allow }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "mcp.protocol", message: expect.stringContaining("The MCP server's answer is larger than 8 MiB") });
    expect(String((error as Error).message)).not.toContain(SECRET);
    expect(Date.now() - started).toBeLessThan(10_000);
    await cutNear(MCP_ANSWER_CAP.maxBytes, before);
  });

  it("EXACT-021 / HARDEN-3: an MCP server flooding a tool call with one endless event fails the call with the cap named, not after its timeout", async () => {
    route = mcpRoute({ method: "tools/call", kind: "flood-events" });
    const session = await connect({ url: `${server.url}/mcp`, auth: { kind: "none" } }, { allow });
    try {
      const before = server.written();
      const started = Date.now();
      const error = await call(session, "echo", { text: "hi" }, { timeoutMs: 60_000 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "mcp.protocol", message: expect.stringContaining("An event of the MCP server's stream is larger than 8 MiB") });
      expect(Date.now() - started).toBeLessThan(10_000);
      await cutNear(MCP_ANSWER_CAP.maxEventBytes!, before);
    } finally {
      await session.close();
    }
  });

  it("EXACT-021 / HARDEN-3: OAuth metadata that floods fails discovery with the authorization server and the cap named", async () => {
    route = (path) => {
      if (path === "/mcp") return { status: 401, body: {} };
      if (path.startsWith("/.well-known/oauth-protected-resource"))
        return { status: 200, body: { resource: `${server.url}/mcp`, authorization_servers: [server.url] } };
      if (path.startsWith("/.well-known/oauth-authorization-server")) return "flood-json";
      return undefined;
    };
    const before = server.written();
    const error = await discover(`${server.url}/mcp`, egressFetch(allow)).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "OAuthError", message: "The authorization server's answer is larger than 256 KiB; it was not read further" });
    await cutNear(OAUTH_ANSWER_CAP.maxBytes, before);
  });

  it("EXACT-021 / HARDEN-3: a token endpoint that floods fails the code exchange with the cap named, and no secret in the message", async () => {
    route = (path) => (path === "/token" ? "flood-json" : undefined);
    const facts = {
      issuer: server.url,
      resource: `${server.url}/mcp`,
      authorization_endpoint: `${server.url}/authorize`,
      token_endpoint: `${server.url}/token`,
      client_id: "client",
      token_endpoint_auth_method: "client_secret_post",
    };
    const before = server.written();
    const error = await exchangeCode(
      facts,
      { client_secret: SECRET },
      { code: "code", verifier: "v", redirectUri: "https://console/cb" },
      egressFetch(allow),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "unreachable", message: expect.stringContaining("larger than 256 KiB") });
    expect(String((error as Error).message)).not.toContain(SECRET);
    await cutNear(OAUTH_ANSWER_CAP.maxBytes, before);
  });

  it("HARDEN-3: the forge's compare, pull request and App answers that flood fail with GitHub and the cap named", async () => {
    route = () => "flood-json";
    const id = "a".repeat(40);
    let before = server.written();
    await expect(isAncestorOnForge({ apiUrl: server.url, token: SECRET, fullName: "acme/app" }, id, id)).rejects.toThrow(
      "GitHub's answer is larger than 16 MiB",
    );
    await cutNear(FORGE_ANSWER_CAP.maxBytes, before);

    before = server.written();
    const forge = githubForge({ apiUrl: server.url, token: SECRET, sleep: async () => {} });
    const opened = await forge.openDraftPR({ fullName: "acme/app", head: "h", base: "main", title: "t", body: "b" }).catch((e: unknown) => e);
    expect(String((opened as Error).message)).toContain("GitHub's answer is larger than 16 MiB");
    await cutNear(FORGE_ANSWER_CAP.maxBytes, before);

    before = server.written();
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const app = new GitHubApp({ apiUrl: server.url, appId: "1", privateKeyPem: privateKey.export({ type: "pkcs1", format: "pem" }) as string });
    await expect(app.installation(7)).rejects.toMatchObject({ kind: "unavailable", message: expect.stringContaining("GitHub's answer is larger than 16 MiB") });
    await cutNear(FORGE_ANSWER_CAP.maxBytes, before);
  });

  it("HARDEN-3: a model provider streaming one endless event stops the reply with the cap named (provider.reply_too_large), soon", async () => {
    route = (path) => (path === "/v1/chat/completions" ? "flood-events" : undefined);
    const before = server.written();
    const started = Date.now();
    const error = await callModel({
      baseURL: `${server.url}/v1`,
      apiKey: SECRET,
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      thinkingLevel: "off",
      signal: new AbortController().signal,
      onDelta: () => {},
      redactor: { redact: (s: string) => s.replaceAll(SECRET, "[secret]") } as never,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "provider.reply_too_large", message: expect.stringContaining("the model provider's stream is larger than 8 MiB") });
    expect(Date.now() - started).toBeLessThan(15_000);
    await cutNear(MODEL_ANSWER_CAP.maxEventBytes!, before);
  });

  it("HARDEN-3: the group selector's model answer that floods is refused within the cap", async () => {
    route = (path) => (path === "/v1/chat/completions" ? "flood-json" : undefined);
    const before = server.written();
    const select = modelSelector({ baseURL: `${server.url}/v1`, apiKey: SECRET, model: "m" });
    await expect(select([])).rejects.toThrow("The model provider's answer is larger than 8 MiB");
    await cutNear(MODEL_ANSWER_CAP.maxBytes, before);
  });

  it("HARDEN-3: Tavily's answer that floods fails the search with the cap named", async () => {
    route = (path) => (path === "/search" ? "flood-json" : undefined);
    const before = server.written();
    const search = tavilySearch({ apiKey: SECRET, apiUrl: server.url })!;
    await expect(search({ query: "q", maxResults: 3 })).rejects.toThrow("the search provider's answer is larger than 2 MiB");
    await cutNear(SEARCH_ANSWER_CAP.maxBytes, before);
  });

  it("HARDEN-3: a rank table asset past its cap is refused, not parsed", async () => {
    route = () => "flood-json";
    const before = server.written();
    const load = rankAssetLoader((path) => fetch(`${server.url}${path}`));
    await expect(load()).rejects.toThrow("The rank table asset's answer is larger than 8 MiB");
    await cutNear(RANK_ASSET_CAP.maxBytes, before);
  });
});
