/**
 * A client to one MCP connection's server (EXACT-021). The SDK is loaded on first use
 * (dynamic import), so the Worker's startup does not pay for it.
 *
 * Transport: Streamable HTTP first; when the server answers the first POST with 400, 404
 * or 405 it is an older server, and the HTTP+SSE transport is tried on the same URL. The
 * caller stores which one worked (`mcp_connections.transport`) and passes it back, so later
 * opens go straight to it. Every request goes through egressCheckedFetch, and every answer
 * is read within MCP_ANSWER_CAP (core/http/answer-caps.ts), the SDK's own parsing included.
 */
import type { Client, Transport } from "@modelcontextprotocol/client";
import { MCP_ANSWER_CAP } from "../http/answer-caps";
import { AnswerTooLarge, answerTooLargeIn, cappedFetch } from "../http/read-within";
import type { EgressAllowance } from "../providers/egress";
import { EgressRefused, egressCheckedFetch, redactedUrl } from "./egress-fetch";

export type McpTransportKind = "streamable_http" | "sse";

/** How requests authenticate; an OAuth token comes from a callback so its owner can refresh it. */
export type McpAuth =
  | { kind: "none" }
  | { kind: "bearer"; token: string }
  | { kind: "oauth"; accessToken: () => Promise<string>; onUnauthorized?: () => Promise<void> };

export interface McpEndpoint {
  url: string;
  auth: McpAuth;
  /** The transport that worked last time, if any. */
  transport?: McpTransportKind | null;
}

export interface McpClientOptions {
  allow: EgressAllowance;
  /** Limit for connecting and for each discovery request (default 15 s). */
  timeoutMs?: number;
  /** The network fetch under the egress checks (tests). */
  fetch?: (input: string | URL, init?: RequestInit) => Promise<Response>;
  signal?: AbortSignal;
}

export interface DiscoveredTool {
  name: string;
  title: string | null;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  annotations: Record<string, unknown> | null;
}

export interface Discovery {
  transport: McpTransportKind;
  serverInfo: { name?: string; version?: string; title?: string };
  /** Untrusted text from the server, never merged into a prompt. */
  instructions: string | null;
  tools: DiscoveredTool[];
}

export type McpContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name?: string; mimeType?: string }
  | { type: "resource"; uri: string; mimeType?: string; text?: string; blob?: string };

export interface McpCallResult {
  content: McpContent[];
  structuredContent?: unknown;
  isError: boolean;
}

/** Why a server could not be used, with a stable code for API answers and tool errors. */
export class McpError extends Error {
  constructor(
    readonly code: "mcp.unreachable" | "mcp.unauthorized" | "mcp.url_refused" | "mcp.protocol" | "mcp.timeout" | "mcp.cancelled",
    message: string,
  ) {
    super(message);
    this.name = "McpError";
  }
}

const DEFAULT_TIMEOUT_MS = 15_000;
const CLIENT_INFO = { name: "guilds-platform", version: "1.0.0" };

const sdk = () => import("@modelcontextprotocol/client");

/**
 * Hears of an answer of the server cut at MCP_ANSWER_CAP. A streamed answer's error reaches
 * the SDK's background reader only, and the request waiting on it would wait out its timeout:
 * each request's signal is aborted instead, and its error names the cap.
 */
export class Overflow {
  #controller = new AbortController();

  readonly report = (error: AnswerTooLarge): void => this.#controller.abort(error);

  /** The signal of one request: the caller's, and aborted when an answer overflows from now on. */
  signal(outer?: AbortSignal): AbortSignal {
    if (this.#controller.signal.aborted) this.#controller = new AbortController();
    return outer ? AbortSignal.any([outer, this.#controller.signal]) : this.#controller.signal;
  }
}

/** The overflow that ended a request (its signal's reason), else the error as it came. */
const overflowed = (signal: AbortSignal, error: unknown): unknown => (signal.aborted && signal.reason instanceof AnswerTooLarge ? signal.reason : error);

/** An open client; `call` replaces its inner client when a session expired. */
export class McpSession {
  constructor(
    public client: Client,
    public transport: McpTransportKind,
    readonly endpoint: McpEndpoint,
    readonly options: McpClientOptions,
    public overflow: Overflow = new Overflow(),
  ) {}

  /** The server's session id on Streamable HTTP, if it gave one. */
  get sessionId(): string | undefined {
    return (this.client.transport as { sessionId?: string } | undefined)?.sessionId;
  }

  /** Ends the server's session too (DELETE on Streamable HTTP), so it frees what it holds. */
  async close(): Promise<void> {
    const transport = this.client.transport as { terminateSession?: () => Promise<void> } | undefined;
    await transport?.terminateSession?.().catch(() => {});
    await this.client.close().catch(() => {});
  }
}

/** Opens a client, trying the remembered transport first (Streamable HTTP when none is). */
export async function connect(endpoint: McpEndpoint, options: McpClientOptions): Promise<McpSession> {
  const first: McpTransportKind = endpoint.transport ?? "streamable_http";
  try {
    return await open(endpoint, options, first);
  } catch (error) {
    if (!(first === "streamable_http" && (await isOldServerAnswer(error)))) throw await asMcpError(error, endpoint.url);
  }
  try {
    return await open(endpoint, options, "sse");
  } catch (error) {
    throw await asMcpError(error, endpoint.url);
  }
}

async function open(endpoint: McpEndpoint, options: McpClientOptions, kind: McpTransportKind): Promise<McpSession> {
  const { Client, StreamableHTTPClientTransport, SSEClientTransport } = await sdk();
  const url = new URL(endpoint.url);
  const overflow = new Overflow();
  const fetch = cappedFetch(egressCheckedFetch(options.allow, options.fetch), MCP_ANSWER_CAP, overflow.report);
  const authProvider = authProviderOf(endpoint.auth);
  // Redirects are ours to follow (each hop egress-checked), not the SDK's.
  const common = { fetch, redirectPolicy: "follow" as const, ...(authProvider ? { authProvider } : {}) };
  const transport: Transport =
    kind === "sse" ? new SSEClientTransport(url, common) : new StreamableHTTPClientTransport(url, { ...common, reconnectionOptions: noReconnect });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const signal = overflow.signal(options.signal);
  try {
    await client.connect(transport, { timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal });
  } catch (error) {
    throw overflowed(signal, error);
  }
  return new McpSession(client, kind, endpoint, options, overflow);
}

// A run's call has its own timeout; the SDK's background stream reconnects would outlive it.
const noReconnect = { maxReconnectionDelay: 0, initialReconnectionDelay: 0, reconnectionDelayGrowFactor: 1, maxRetries: 0 };

function authProviderOf(auth: McpAuth) {
  if (auth.kind === "bearer") return { token: async () => auth.token };
  if (auth.kind === "oauth") return { token: auth.accessToken, ...(auth.onUnauthorized ? { onUnauthorized: auth.onUnauthorized } : {}) };
  return undefined;
}

/**
 * Connects, lists every tool (all pages), reads the server's info and instructions, and
 * closes. Nothing stays open: runs open their own sessions from the stored facts.
 */
export async function discover(endpoint: McpEndpoint, options: McpClientOptions): Promise<Discovery> {
  const session = await connect(endpoint, options);
  try {
    const tools: DiscoveredTool[] = [];
    let cursor: string | undefined;
    const seen = new Set<string>();
    do {
      const signal = session.overflow.signal(options.signal);
      const page = await session.client
        .listTools(cursor === undefined ? undefined : { cursor }, { timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal })
        .catch(async (error) => {
          throw await asMcpError(overflowed(signal, error), endpoint.url);
        });
      for (const t of page.tools) tools.push(discoveredTool(t));
      cursor = page.nextCursor;
      // A server that hands back a cursor it gave before would page forever.
      if (cursor !== undefined) {
        if (seen.has(cursor)) throw new McpError("mcp.protocol", "The server's tools/list repeated a cursor");
        seen.add(cursor);
      }
    } while (cursor !== undefined);
    const info = session.client.getServerVersion();
    return {
      transport: session.transport,
      serverInfo: {
        ...(info?.name ? { name: info.name } : {}),
        ...(info?.version ? { version: info.version } : {}),
        ...(info?.title ? { title: info.title } : {}),
      },
      instructions: session.client.getInstructions() ?? null,
      tools,
    };
  } finally {
    await session.close();
  }
}

function discoveredTool(t: {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}): DiscoveredTool {
  const obj = (v: unknown) => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
  return {
    name: t.name,
    title: t.title ?? null,
    description: t.description ?? "",
    inputSchema: obj(t.inputSchema) ?? { type: "object" },
    outputSchema: obj(t.outputSchema),
    annotations: obj(t.annotations),
  };
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The tool as discovery stored it: its outputSchema checks structuredContent without a new tools/list. */
  tool?: { name: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown> | null };
}

/**
 * Calls one tool. On abort or timeout the SDK tells the server with
 * `notifications/cancelled`. A Streamable HTTP session the server forgot (404 on its id)
 * is opened again once and the call repeated.
 */
export async function call(session: McpSession, remoteName: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<McpCallResult> {
  let signal = session.overflow.signal(options.signal);
  const attempt = async () => {
    const tool = options.tool;
    signal = session.overflow.signal(options.signal);
    const result = await session.client.callTool(
      { name: remoteName, arguments: args },
      {
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        signal,
        ...(tool
          ? {
              toolDefinition: {
                name: tool.name,
                inputSchema: tool.inputSchema as never,
                ...(tool.outputSchema ? { outputSchema: tool.outputSchema as never } : {}),
              },
            }
          : {}),
      },
    );
    return neutralResult(result as { content?: unknown[]; structuredContent?: unknown; isError?: boolean });
  };
  try {
    return await attempt();
  } catch (error) {
    if (!(session.transport === "streamable_http" && (await isExpiredSession(error))))
      throw await asMcpError(overflowed(signal, error), session.endpoint.url, options.signal);
  }
  await session.close();
  const fresh = await connect({ ...session.endpoint, transport: session.transport }, session.options);
  session.client = fresh.client;
  session.overflow = fresh.overflow;
  try {
    return await attempt();
  } catch (error) {
    throw await asMcpError(overflowed(signal, error), session.endpoint.url, options.signal);
  }
}

/** The SDK's content blocks as plain data; unknown kinds become a short text note. */
export function neutralResult(result: { content?: unknown[]; structuredContent?: unknown; isError?: boolean }): McpCallResult {
  const content: McpContent[] = [];
  for (const raw of result.content ?? []) {
    const b = raw as Record<string, unknown>;
    const str = (k: string) => (typeof b[k] === "string" ? (b[k] as string) : undefined);
    if (b.type === "text") content.push({ type: "text", text: str("text") ?? "" });
    else if (b.type === "image" || b.type === "audio")
      content.push({ type: b.type, data: str("data") ?? "", mimeType: str("mimeType") ?? "application/octet-stream" });
    else if (b.type === "resource_link")
      content.push({
        type: "resource_link",
        uri: str("uri") ?? "",
        ...(str("name") ? { name: str("name")! } : {}),
        ...(str("mimeType") ? { mimeType: str("mimeType")! } : {}),
      });
    else if (b.type === "resource") {
      const r = (b.resource ?? {}) as Record<string, unknown>;
      const rs = (k: string) => (typeof r[k] === "string" ? (r[k] as string) : undefined);
      content.push({
        type: "resource",
        uri: rs("uri") ?? "",
        ...(rs("mimeType") ? { mimeType: rs("mimeType")! } : {}),
        ...(rs("text") !== undefined ? { text: rs("text")! } : {}),
        ...(rs("blob") !== undefined ? { blob: rs("blob")! } : {}),
      });
    } else content.push({ type: "text", text: `[unsupported content: ${String(b.type)}]` });
  }
  return { content, ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}), isError: result.isError === true };
}

const httpStatus = (error: unknown): number | undefined => {
  const data = (error as { data?: { status?: unknown } } | null)?.data;
  return typeof data?.status === "number" ? data.status : undefined;
};

async function isOldServerAnswer(error: unknown): Promise<boolean> {
  const { SdkHttpError } = await sdk();
  const status = httpStatus(error);
  return SdkHttpError.isInstance(error) && (status === 400 || status === 404 || status === 405);
}

async function isExpiredSession(error: unknown): Promise<boolean> {
  const { SdkHttpError } = await sdk();
  return SdkHttpError.isInstance(error) && httpStatus(error) === 404;
}

/** Any failure as an McpError; messages name the URL without its query or userinfo. */
export async function asMcpError(error: unknown, url: string, signal?: AbortSignal): Promise<McpError> {
  if (error instanceof McpError) return error;
  const where = redactedUrl(url);
  if (error instanceof EgressRefused || (error as { cause?: unknown })?.cause instanceof EgressRefused) {
    const refused = error instanceof EgressRefused ? error : ((error as { cause: EgressRefused }).cause as EgressRefused);
    return new McpError("mcp.url_refused", refused.message);
  }
  if (signal?.aborted) return new McpError("mcp.cancelled", `The call to ${where} was cancelled`);
  const tooLarge = answerTooLargeIn(error);
  if (tooLarge) return new McpError("mcp.protocol", `${where}: ${tooLarge.message}`);
  const { SdkError, SdkErrorCode, UnauthorizedError, ProtocolError } = await sdk();
  if (UnauthorizedError.isInstance(error) || httpStatus(error) === 401 || httpStatus(error) === 403)
    return new McpError("mcp.unauthorized", `${where} refused the connection's credentials`);
  if (SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout) return new McpError("mcp.timeout", `${where} did not answer in time`);
  if (ProtocolError.isInstance(error)) return new McpError("mcp.protocol", `${where} answered with an error: ${clip(error.message)}`);
  const status = httpStatus(error);
  if (status !== undefined) return new McpError("mcp.unreachable", `${where} answered HTTP ${status}`);
  return new McpError("mcp.unreachable", `${where} could not be reached: ${clip((error as Error)?.message ?? String(error))}`);
}

const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…` : s);
