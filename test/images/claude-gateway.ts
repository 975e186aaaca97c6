/**
 * Test support for Claude Code in the standard box: the address it takes as its gateway,
 * listening where boxes reach the host and passing every call to the mock model. It keeps
 * what each call was (method, path with query, model, max_tokens, stream, which headers
 * carried a key), so a test can say exactly what a gateway must answer.
 *
 * Claude Code 2.1.328 also sends `{"role":"system"}` turns inside `messages` (its
 * environment section, mid-conversation tool changes), which the mock refuses as Anthropic's
 * API does (Claude Code then retries without them). Those turns are dropped here on the way,
 * so each call reaches the mock once; the rest of each call reaches it as sent. The
 * platform's gateway takes them (core/model-gateway/messages.ts).
 */
import { createServer, type Server } from "node:http";

export interface GatewayCall {
  method: string;
  /** Path and query as Claude Code sent them. */
  url: string;
  model: unknown;
  max_tokens: unknown;
  stream: unknown;
  /** Which of x-api-key and authorization the call carried (the key's value is never kept). */
  key_headers: string[];
  /** How many `role: "system"` turns were dropped from `messages`. */
  system_turns_dropped: number;
}

export interface ClaudeGateway {
  /** `http://<gateway>:<port>`, as a box reaches it. */
  url: string;
  calls: GatewayCall[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive", "accept-encoding"]);

/** Starts the pass-through on 0.0.0.0; `gateway` is the host address boxes use, `mockUrl` the mock model's. */
export async function startClaudeGateway(gateway: string, mockUrl: string): Promise<ClaudeGateway> {
  const calls: GatewayCall[] = [];
  const server: Server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      let body = Buffer.concat(chunks);
      const call: GatewayCall = {
        method: req.method ?? "GET",
        url: req.url ?? "/",
        model: undefined,
        max_tokens: undefined,
        stream: undefined,
        key_headers: ["x-api-key", "authorization"].filter((name) => typeof req.headers[name] === "string" && req.headers[name] !== ""),
        system_turns_dropped: 0,
      };
      if (body.length && String(req.headers["content-type"]).includes("json")) {
        const json = JSON.parse(body.toString()) as { model?: unknown; max_tokens?: unknown; stream?: unknown; messages?: Array<{ role?: unknown }> };
        Object.assign(call, { model: json.model, max_tokens: json.max_tokens, stream: json.stream });
        if (Array.isArray(json.messages)) {
          const kept = json.messages.filter((m) => m.role !== "system");
          call.system_turns_dropped = json.messages.length - kept.length;
          json.messages = kept;
          body = Buffer.from(JSON.stringify(json));
        }
      }
      calls.push(call);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && typeof value === "string") headers[name] = value;
      const answer = await fetch(`${mockUrl}${call.url}`, { method: call.method, headers, body: body.length ? body : undefined });
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name) && name !== "content-encoding") out[name] = value;
      });
      res.writeHead(answer.status, out);
      if (answer.body) for await (const chunk of answer.body) res.write(chunk);
      res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: String(error) } }));
    }
  });
  server.listen(0, "0.0.0.0");
  await new Promise((r) => server.once("listening", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://${gateway}:${port}`,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
