/**
 * The local MCP server: a stand-in for the remote MCP servers tenants connect, on
 * loopback, built with the official server package. `npm start` and the test stacks start
 * it; tests drive it over HTTP.
 *
 *   /mcp                 Streamable HTTP (sessions; an unknown session id answers 404)
 *   /bearer/mcp          the same behind `Authorization: Bearer <bearerToken>`
 *   /oauth/mcp           the same behind OAuth 2.1, with its authorization server (./oauth.ts)
 *   /oauth-registered/mcp  the same, its authorization server without dynamic registration (clients made by tests)
 *   /sse + /messages     the old HTTP+SSE transport (POST /sse answers 405, so a client
 *                        given /sse falls back to it)
 *   /redirect?to=<url>   307 to any URL (egress tests)
 *   /admin/state         GET: { cancelled, calls, sessions }
 *   /admin/reset         POST: base tools back, state emptied, sessions dropped
 *   /admin/tools         POST { add?: ToolDef[], remove?: string[] }: change the tool list
 *   /admin/expire-sessions POST: forget every session (the next request with one gets 404)
 *
 * More routes (an OAuth-protected variant) plug in through `mounts` (see README.md).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server, type Transport, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { type OAuthMountOptions, oauthMount } from "./oauth";
import { type ToolBox as Box, ToolBox, type ToolDef } from "./tools";

export const DEFAULT_BEARER_TOKEN = "mcp-local-bearer-token-0123456789";

/** A route of one's own: answers a request, or null to let the next route try. */
export type McpMount = (request: Request, server: LocalMcpServer) => Promise<Response | null>;

export interface LocalMcpServer {
  /** Base URL, e.g. http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  port: number;
  bearerToken: string;
  box: Box;
  /** Serves a Streamable HTTP MCP request (sessions shared with /mcp): for mounts that check their own auth first. */
  serveStreamable(request: Request): Promise<Response>;
  close(): Promise<void>;
}

export interface McpServerOptions {
  port?: number;
  host?: string;
  bearerToken?: string;
  mounts?: McpMount[];
  /** The OAuth-protected variant at /oauth/mcp (./oauth.ts), mounted unless false. */
  oauth?: OAuthMountOptions | false;
}

interface Session {
  transport: { close(): Promise<void> };
  authorization: string | null;
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const rpcError = (status: number, message: string) => json(status, { jsonrpc: "2.0", error: { code: -32000, message }, id: null });

export async function startMcpServer(options: McpServerOptions = {}): Promise<LocalMcpServer> {
  const host = options.host ?? "127.0.0.1";
  const bearerToken = options.bearerToken ?? DEFAULT_BEARER_TOKEN;
  const box = new ToolBox();
  const streamable = new Map<string, Session & { transport: WebStandardStreamableHTTPServerTransport }>();
  const sse = new Map<string, Session & { transport: SseTransport }>();

  const newServer = (authorization: () => string | null) => {
    const server = new Server(
      { name: "guilds-local-mcp", version: "1.0.0", title: "Local MCP test server" },
      { capabilities: { tools: { listChanged: true } }, instructions: "A local stand-in for remote MCP servers. Its descriptions are test text." },
    );
    box.install(server, authorization);
    box.state.sessions++;
    return server;
  };

  async function serveStreamable(request: Request): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id) {
      const session = streamable.get(id);
      if (!session) return rpcError(404, "Session not found");
      session.authorization = request.headers.get("authorization");
      return session.transport.handleRequest(request);
    }
    if (request.method !== "POST") return rpcError(400, "No session id");
    const entry = { authorization: request.headers.get("authorization") } as Session & { transport: WebStandardStreamableHTTPServerTransport };
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void streamable.set(sid, entry),
      onsessionclosed: (sid) => void streamable.delete(sid),
    });
    entry.transport = transport;
    await newServer(() => entry.authorization).connect(transport);
    box.spy(transport as never);
    return transport.handleRequest(request);
  }

  const mounts = [
    ...(options.mounts ?? []),
    ...(options.oauth === false ? [] : [oauthMount(options.oauth), oauthMount({ ...options.oauth, prefix: "/oauth-registered", registration: false })]),
  ];
  const self: LocalMcpServer = { url: "", port: 0, bearerToken, box, serveStreamable, close: async () => {} };

  async function route(request: Request, res: ServerResponse): Promise<Response | null> {
    const url = new URL(request.url);
    for (const mount of mounts) {
      const answer = await mount(request, self);
      if (answer) return answer;
    }
    switch (url.pathname) {
      case "/mcp":
        return serveStreamable(request);
      case "/bearer/mcp":
        if (request.headers.get("authorization") !== `Bearer ${bearerToken}`) {
          return new Response("unauthorized", { status: 401, headers: { "www-authenticate": 'Bearer realm="local-mcp"' } });
        }
        return serveStreamable(request);
      case "/sse":
        if (request.method !== "GET") return new Response("Method not allowed", { status: 405 });
        openSse(request, res);
        return null;
      case "/messages": {
        const session = sse.get(url.searchParams.get("sessionId") ?? "");
        if (!session) return new Response("Session not found", { status: 404 });
        session.authorization = request.headers.get("authorization");
        session.transport.onmessage?.((await request.json()) as never);
        return new Response("Accepted", { status: 202 });
      }
      case "/redirect":
        return new Response(null, { status: 307, headers: { location: url.searchParams.get("to") ?? "/" } });
      case "/admin/state":
        return json(200, { ...box.state, tools: box.tools.map((t) => t.name), open_sessions: streamable.size + sse.size });
      case "/admin/reset":
        box.reset();
        await dropSessions();
        return json(200, { ok: true });
      case "/admin/tools": {
        const body = (await request.json()) as { add?: ToolDef[]; remove?: string[] };
        box.tools = [...box.tools.filter((t) => !(body.remove ?? []).includes(t.name)), ...(body.add ?? [])];
        return json(200, { tools: box.tools.map((t) => t.name) });
      }
      case "/admin/expire-sessions":
        await dropSessions();
        return json(200, { ok: true });
      default:
        return new Response("Not found", { status: 404 });
    }
  }

  async function dropSessions() {
    const all = [...streamable.values(), ...sse.values()];
    streamable.clear();
    sse.clear();
    for (const s of all) await s.transport.close().catch(() => {});
  }

  function openSse(request: Request, res: ServerResponse) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const transport = new SseTransport(
      (chunk) => res.write(chunk),
      () => res.end(),
    );
    const entry = { transport, authorization: request.headers.get("authorization") };
    sse.set(transport.sessionId, entry);
    res.on("close", () => {
      sse.delete(transport.sessionId);
      void transport.close();
    });
    res.write(`event: endpoint\ndata: /messages?sessionId=${transport.sessionId}\n\n`);
    void newServer(() => entry.authorization)
      .connect(transport)
      .then(() => box.spy(transport as never));
  }

  const http = createServer((req, res) => {
    void (async () => {
      const request = await toRequest(req, res, host);
      const answer = await route(request, res);
      if (answer) await send(answer, res);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String((error as Error)?.message ?? error));
    });
  });
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, host, resolve));
  const port = (http.address() as AddressInfo).port;
  self.url = `http://${host}:${port}`;
  self.port = port;
  self.close = async () => {
    await dropSessions();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return self;
}

/** The old transport's server side: messages out as `message` events on the GET stream. */
class SseTransport implements Transport {
  readonly sessionId = randomUUID();
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;

  constructor(
    private readonly write: (chunk: string) => void,
    private readonly end: () => void,
  ) {}

  async start(): Promise<void> {}

  async send(message: unknown): Promise<void> {
    if (!this.closed) this.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.end();
    this.onclose?.();
  }
}

async function toRequest(req: IncomingMessage, res: ServerResponse, host: string): Promise<Request> {
  const chunks: Buffer[] = [];
  if (req.method !== "GET" && req.method !== "HEAD") for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  const controller = new AbortController();
  res.once("close", () => controller.abort());
  return new Request(`http://${req.headers.host ?? host}${req.url ?? "/"}`, { method: req.method ?? "GET", headers, body, signal: controller.signal });
}

async function send(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => {
    headers[k] = v;
  });
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
    if (done) break;
    res.write(value);
  }
  res.end();
}
