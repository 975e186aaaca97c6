/**
 * The local MCP server's tools and what tests can read back: an MCP server built with
 * the official server package's low-level Server, so tools/list pages at will and the
 * tool list can change while it runs.
 */

import { setTimeout as sleep } from "node:timers/promises";
import type { Server } from "@modelcontextprotocol/server";

/** Tools/list answers this many tools per page, so clients have to follow cursors. */
export const PAGE_SIZE = 2;

export interface ToolDef {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** Tests only, never listed: a tool added through /admin/tools answers this structured content (right or wrong for its schema). */
  structuredContent?: unknown;
}

/** What tests read at GET /admin/state. */
export interface ServerState {
  /** notifications/cancelled as received: the request id and its reason. */
  cancelled: Array<{ requestId: string | number; reason?: string }>;
  /** Tool calls by remote name, in order. */
  calls: string[];
  /** Sessions opened (Streamable HTTP and SSE). */
  sessions: number;
}

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: "object", properties, required });

export const BASE_TOOLS: ToolDef[] = [
  { name: "echo", description: "Echoes its text back.", inputSchema: object({ text: { type: "string" } }, ["text"]) },
  {
    name: "add",
    title: "Add two numbers",
    description: "Adds a and b; the sum also comes as structured content.",
    inputSchema: object({ a: { type: "number" }, b: { type: "number" } }, ["a", "b"]),
    outputSchema: object({ sum: { type: "number" } }, ["sum"]),
  },
  { name: "slow", description: "Waits the given seconds (honours cancellation).", inputSchema: object({ seconds: { type: "number" } }, ["seconds"]) },
  { name: "fail", description: "Always reports a tool error.", inputSchema: object({}) },
  { name: "echo_header", description: "Echoes the Authorization header the request carried.", inputSchema: object({}) },
  { name: "page_filler_1", description: "Does nothing; lengthens the list.", inputSchema: object({}) },
  { name: "page_filler_2", description: "Does nothing; lengthens the list.", inputSchema: object({}) },
];

/** The server's shared state: the tool list (changeable), what it saw. */
export class ToolBox {
  tools: ToolDef[] = [...BASE_TOOLS];
  state: ServerState = { cancelled: [], calls: [], sessions: 0 };

  reset(): void {
    this.tools = [...BASE_TOOLS];
    this.state = { cancelled: [], calls: [], sessions: 0 };
  }

  /** Installs tools/list (paged) and tools/call on one session's server. */
  install(server: Server, authorization: () => string | null): void {
    server.setRequestHandler("tools/list", async (request) => {
      const start = Number(request.params?.cursor ?? 0) || 0;
      const page = this.tools.slice(start, start + PAGE_SIZE).map(({ structuredContent: _, ...listed }) => listed);
      const next = start + PAGE_SIZE < this.tools.length ? String(start + PAGE_SIZE) : undefined;
      return { tools: page, ...(next ? { nextCursor: next } : {}) } as never;
    });
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const name = request.params.name;
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      this.state.calls.push(name);
      if (!this.tools.some((t) => t.name === name)) return { ...text(`Unknown tool ${name}`), isError: true } as never;
      switch (name) {
        case "echo":
          return text(String(args.text ?? "")) as never;
        case "add": {
          const sum = Number(args.a) + Number(args.b);
          return { ...text(String(sum)), structuredContent: { sum } } as never;
        }
        case "slow": {
          await sleep(Number(args.seconds ?? 1) * 1000, undefined, { signal: ctx.mcpReq.signal }).catch(() => {});
          return text(ctx.mcpReq.signal.aborted ? "cancelled" : "done") as never;
        }
        case "fail":
          return { ...text("This tool always fails."), isError: true } as never;
        case "echo_header":
          return text(`Authorization: ${ctx.http?.req?.headers.get("authorization") ?? authorization() ?? "(none)"}`) as never;
        default: {
          const answer = this.tools.find((t) => t.name === name)?.structuredContent;
          return (answer === undefined ? text(`${name} ran`) : { ...text(JSON.stringify(answer)), structuredContent: answer }) as never;
        }
      }
    });
  }

  /** Records notifications/cancelled as they arrive on a transport, before the server handles them. */
  spy(transport: { onmessage?: ((message: never, extra?: never) => void) | undefined }): void {
    const handle = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const m = message as { method?: string; params?: { requestId?: string | number; reason?: string } };
      if (m.method === "notifications/cancelled" && m.params?.requestId !== undefined) {
        this.state.cancelled.push({ requestId: m.params.requestId, ...(m.params.reason ? { reason: m.params.reason } : {}) });
      }
      handle?.(message, extra);
    };
  }
}
