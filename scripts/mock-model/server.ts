/**
 * The scripted mock model: a real HTTP server speaking the OpenAI Chat Completions
 * protocol and Anthropic's Messages API, so the platform's model clients (and a harness
 * in a sandbox) are exercised over the wire exactly as in production, while tests decide
 * each reply by queueing it over HTTP, whichever protocol takes it.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import {
  contentBlocks,
  countTokens,
  echoInput,
  estimatedInput,
  isMessagesPath,
  MessagesRequestError,
  messageBody,
  messageEvents,
  messagesErrorBody,
  messagesUsage,
  validateMessagesRequest,
} from "./messages";
import {
  completionBody,
  echoReply,
  errorBody,
  isObject,
  type Json,
  lastMessageText,
  parseScript,
  ScriptError,
  type ScriptedReply,
  streamChunks,
  usageFor,
} from "./replies";

export interface MockModel {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface MockModelOptions {
  port?: number;
  host?: string;
}

/** One model call as the server saw it; `aborted` turns true if the client left early. */
export interface RecordedRequest {
  received_at: string;
  path: string;
  headers: Record<string, string>;
  /**
   * SHA-256 (hex) of the Authorization header's value, else of the x-api-key header's (the
   * Messages API's key), or null without either: the key itself is never recorded, yet a
   * test can tell which key a request carried.
   */
  authorization_sha256: string | null;
  body: Json;
  aborted: boolean;
}

/** Header values that must never be echoed back or logged. */
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "x-api-key", "api-key", "cookie"]);
const MAX_BODY_BYTES = 10 * 1024 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Mutable state shared by all requests of one server instance. */
class MockState {
  queue: ScriptedReply[] = [];
  /**
   * Replies scripted for one model name. Tests that run side by side give each agent its
   * own model name, so one test never takes another's reply.
   */
  modelQueues = new Map<string, ScriptedReply[]>();
  requests: RecordedRequest[] = [];
  /** Holds released so far, and the replies waiting on holds not yet released. */
  private released = new Set<string>();
  private holding = new Map<string, Array<() => void>>();
  private callIds = 0;
  private toolUseIds = 0;
  private completions = 0;
  private messages = 0;

  nextCallId = (): string => `call_${++this.callIds}`;
  nextToolUseId = (): string => `toolu_mock_${++this.toolUseIds}`;
  nextCompletionId = (): string => `chatcmpl-mock-${++this.completions}`;
  nextMessageId = (): string => `msg_mock_${++this.messages}`;

  /**
   * The next reply for a request naming `model`: its own queue first, then the shared one;
   * in each the first reply whose `when` (if any) is in the request's last message.
   */
  takeReply(model: Json | undefined, messages: Json[]): ScriptedReply | undefined {
    const last = lastMessageText(messages);
    const take = (queue: ScriptedReply[] | undefined) => {
      const at = queue?.findIndex((reply) => reply.when === undefined || last.includes(reply.when)) ?? -1;
      return at === -1 ? undefined : queue!.splice(at, 1)[0];
    };
    return take(typeof model === "string" ? this.modelQueues.get(model) : undefined) ?? take(this.queue);
  }

  /** Resolves true once `name` is released; false if the client leaves first. */
  hold(name: string, gone: AbortSignal): Promise<boolean> {
    if (this.released.has(name)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiting = this.holding.get(name) ?? [];
      waiting.push(() => resolve(!gone.aborted));
      this.holding.set(name, waiting);
      gone.addEventListener("abort", () => resolve(false), { once: true });
    });
  }

  /** Lets every reply waiting on `name` go, and any that takes it later; answers how many waited. */
  release(name: string): number {
    this.released.add(name);
    const waiting = this.holding.get(name) ?? [];
    this.holding.delete(name);
    for (const go of waiting) go();
    return waiting.length;
  }

  reset(): void {
    // Nothing is left waiting on a hold the reset forgets.
    for (const name of [...this.holding.keys()]) this.release(name);
    this.released.clear();
    this.queue = [];
    this.modelQueues.clear();
    this.requests = [];
    this.callIds = 0;
    this.toolUseIds = 0;
  }
}

export async function startMockModel(options: MockModelOptions = {}): Promise<MockModel> {
  const host = options.host ?? "127.0.0.1";
  const state = new MockState();
  const server = createServer((req, res) => {
    handle(state, req, res).catch((err: unknown) => {
      // A handler failure must not take the server down; answer if still possible.
      if (!res.headersSent && !res.destroyed) {
        sendJson(res, 500, errorBody(500, err instanceof Error ? err.message : String(err)));
      } else {
        res.destroy();
      }
    });
  });
  // Idle connections stay open a minute, as providers' front ends keep them, not Node's 5 s: at
  // 5 s the server closed sockets the Worker was reusing at that instant, and a burst of a
  // thousand schedule generations met about a hundred "Connection error"s (each retried).
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 61_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive sockets and streams in progress would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

async function handle(state: MockState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? "/", "http://mock").pathname.replace(/\/+$/, "") || "/";
  const method = req.method ?? "GET";
  try {
    if (path === "/__health" && method === "GET") return sendJson(res, 200, { ok: true });
    if (path === "/__requests/count" && method === "GET") {
      // Cheap to poll: a count instead of every recorded body.
      const model = new URL(req.url ?? "/", "http://mock").searchParams.get("model");
      const count = model ? state.requests.filter((r) => isObject(r.body) && r.body.model === model).length : state.requests.length;
      return sendJson(res, 200, { count });
    }
    if (path === "/__requests" && method === "GET") {
      const model = new URL(req.url ?? "/", "http://mock").searchParams.get("model");
      const requests = model ? state.requests.filter((r) => isObject(r.body) && r.body.model === model) : state.requests;
      return sendJson(res, 200, { requests });
    }
    if (path === "/__script" && method === "DELETE") {
      state.reset();
      return sendJson(res, 200, { queued: 0 });
    }
    if (path === "/__script" && method === "POST") {
      const body = await readJson(req);
      const replies = parseScript(body, state.nextCallId);
      const model = isObject(body) && typeof body.model === "string" ? body.model : null;
      if (isObject(body) && body.model !== undefined && model === null) throw new ScriptError("model must be a string");
      if (model === null) {
        state.queue.push(...replies);
        return sendJson(res, 200, { queued: state.queue.length });
      }
      const queue = state.modelQueues.get(model) ?? [];
      queue.push(...replies);
      state.modelQueues.set(model, queue);
      return sendJson(res, 200, { queued: queue.length });
    }
    if (path === "/__release" && method === "POST") {
      const body = await readJson(req);
      if (!isObject(body) || typeof body.hold !== "string") throw new ScriptError("hold must be a string");
      return sendJson(res, 200, { released: body.hold, waiting: state.release(body.hold) });
    }
    if ((path === "/v1/models" || path === "/models") && method === "GET") {
      return sendJson(res, 200, {
        object: "list",
        data: [{ id: "mock-model", object: "model", created: 0, owned_by: "mock" }],
      });
    }
    // Any prefix: a second base URL on the same server (`/tenant/v1`) stands for another provider.
    if (path.endsWith("/chat/completions") && method === "POST") {
      return await chatCompletion(state, req, res, path);
    }
    if (path.endsWith("/messages/count_tokens") && method === "POST") {
      const body = await readJson(req);
      recordRequest(state, req, path, body);
      return sendJson(res, 200, { input_tokens: countTokens(validateMessagesRequest(body, true)) });
    }
    if (path.endsWith("/messages") && method === "POST") return await messages(state, req, res, path);
    throw new HttpError(404, `No route for ${method} ${path}`, "not_found");
  } catch (err) {
    if (err instanceof MessagesRequestError) return sendJson(res, err.status, messagesErrorBody(err.status, err.message));
    // A Messages client reads errors in Anthropic's shape, unreadable JSON and unknown methods included.
    if (err instanceof HttpError && isMessagesPath(path)) return sendJson(res, err.status, messagesErrorBody(err.status, err.message));
    if (err instanceof ScriptError) return sendJson(res, 400, errorBody(400, err.message));
    if (err instanceof HttpError) return sendJson(res, err.status, errorBody(err.status, err.message, err.code));
    throw err;
  }
}

async function chatCompletion(state: MockState, req: IncomingMessage, res: ServerResponse, path: string) {
  const body = await readJson(req);
  if (!isObject(body)) throw new HttpError(400, "request body must be a JSON object");
  const messages = body.messages;
  if (!Array.isArray(messages)) throw new HttpError(400, "messages must be an array");

  const gone = watchClient(res, recordRequest(state, req, path, body));
  const reply = state.takeReply(body.model, messages) ?? echoReply(messages);
  if (!(await goesOnToContent(state, reply, res, gone, errorBody))) return;

  const meta = {
    id: state.nextCompletionId(),
    created: Math.floor(Date.now() / 1000),
    model: typeof body.model === "string" ? body.model : "mock-model",
  };
  const usage = usageFor(reply, messages);
  if (body.stream !== true) return sendJson(res, 200, completionBody(reply, meta, usage));

  const streamOptions = body.stream_options;
  const includeUsage = isObject(streamOptions) && streamOptions.include_usage === true;
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  const events = streamChunks(reply, meta, usage, includeUsage).map((chunk) => JSON.stringify(chunk));
  events.push("[DONE]");
  for (const [i, event] of events.entries()) {
    if (i > 0 && reply.stream_chunk_ms) {
      if (!(await pause(reply.stream_chunk_ms, gone))) return;
    }
    if (gone.aborted) return;
    res.write(`data: ${event}\n\n`);
  }
  res.end();
}

/**
 * Anthropic's Messages API from the same queues: refused requests are recorded too (a test
 * reads what a translation sent) but take no reply, as the real API refuses before generating.
 */
async function messages(state: MockState, req: IncomingMessage, res: ServerResponse, path: string) {
  const body = await readJson(req);
  const gone = watchClient(res, recordRequest(state, req, path, body));
  const request = validateMessagesRequest(body);
  const reply = state.takeReply(request.model, request.messages) ?? echoReply(echoInput(request.messages));
  if (!(await goesOnToContent(state, reply, res, gone, messagesErrorBody))) return;

  const meta = { id: state.nextMessageId(), model: request.model };
  const blocks = contentBlocks(reply, state.nextToolUseId);
  const usage = messagesUsage(reply, estimatedInput(request));
  if (!request.stream) return sendJson(res, 200, messageBody(reply, meta, blocks, usage));

  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  for (const [i, { event, data }] of messageEvents(reply, meta, blocks, usage).entries()) {
    if (i > 0 && reply.stream_chunk_ms) {
      if (!(await pause(reply.stream_chunk_ms, gone))) return;
    }
    if (gone.aborted) return;
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
}

function recordRequest(state: MockState, req: IncomingMessage, path: string, body: Json): RecordedRequest {
  const headers = redactedHeaders(req);
  // The real values: `headers` holds them redacted.
  const key = req.headers.authorization || [req.headers["x-api-key"] ?? []].flat().join(", ");
  const record: RecordedRequest = {
    received_at: new Date().toISOString(),
    path,
    headers,
    authorization_sha256: key ? createHash("sha256").update(key).digest("hex") : null,
    body,
    aborted: false,
  };
  state.requests.push(record);
  return record;
}

/**
 * Aborts when the client goes away: `close` before the response finished means the client
 * left (or the server is closing), which the record keeps.
 */
function watchClient(res: ServerResponse, record: RecordedRequest): AbortSignal {
  const gone = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) {
      record.aborted = true;
      gone.abort();
    }
  });
  return gone.signal;
}

/**
 * What a reply does before any content, on either protocol: waits `delay_ms` and then its
 * `hold`, then answers a scripted error status (in the protocol's error shape) or redirect.
 * True when the reply's content is still to be sent; false when that answered, or the
 * client left while waiting.
 */
async function goesOnToContent(
  state: MockState,
  reply: ScriptedReply,
  res: ServerResponse,
  gone: AbortSignal,
  errorShape: (status: number, message?: string) => unknown,
): Promise<boolean> {
  if (reply.delay_ms) {
    if (!(await pause(reply.delay_ms, gone))) return false;
  }
  if (reply.hold !== undefined && !(await state.hold(reply.hold, gone))) return false;
  if (reply.status !== undefined) {
    sendJson(res, reply.status, errorShape(reply.status, reply.content), reply.headers);
    return false;
  }
  if (reply.redirect_to !== undefined) {
    res.writeHead(307, { location: reply.redirect_to, "content-length": 0 });
    res.end();
    return false;
  }
  return true;
}

/** Resolves false instead of throwing when the client leaves, so callers just stop. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function redactedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    headers[key] = SECRET_HEADERS.has(key) ? "[redacted]" : Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

async function readJson(req: IncomingMessage): Promise<Json> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req) {
    const buf = part as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, "request body too large");
    parts.push(buf);
  }
  const text = Buffer.concat(parts).toString("utf8");
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new HttpError(400, "request body is not valid JSON");
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
