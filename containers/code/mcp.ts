/**
 * `guilds-code mcp`: the task's two tools for a harness in the box (Claude Code), as a stdio
 * MCP server (newline-delimited JSON-RPC 2.0). The harness lists and calls them like any MCP
 * tool; the platform acts on the call itself, which it sees in the model's reply at its
 * gateway, so the server only checks the arguments and answers: it keeps no state and
 * reaches nothing.
 */
import { createInterface } from "node:readline";

/** Newest first: an initialize naming one of these gets it back, any other gets the newest. */
export const MCP_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

export const MCP_SERVER_NAME = "guilds";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Id = string | number | null;
export type RpcAnswer = { jsonrpc: "2.0"; id: Id; result: Json } | { jsonrpc: "2.0"; id: Id; error: { code: number; message: string } };

/** The limits are the platform's own tools' (core/tools/task.ts). */
const SUMMARY_MAX = 8_000;
const QUESTION_MAX = 4_000;

/**
 * Claude Code defers MCP tools behind its ToolSearch tool (the model sees their names only);
 * these two are the task's own and go into every request whole.
 */
const ALWAYS_LOAD = { "anthropic/alwaysLoad": true };

export const MCP_TOOLS = [
  {
    name: "complete_task",
    description: "Mark the task complete: its pull request turns ready for review. Call it once the work is committed.",
    inputSchema: {
      type: "object",
      properties: {
        summary: { type: "string", minLength: 1, maxLength: SUMMARY_MAX, description: "What you did and how it was checked, for the reviewer" },
      },
      required: ["summary"],
      additionalProperties: false,
    },
    _meta: ALWAYS_LOAD,
  },
  {
    name: "ask_question",
    description:
      "Ask a person a question about the task. blocking: true when you cannot go on without the answer (the run then waits for it); false to go on meanwhile.",
    inputSchema: {
      type: "object",
      properties: {
        question: { type: "string", minLength: 1, maxLength: QUESTION_MAX, description: "The question, on its own" },
        blocking: { type: "boolean", description: "Whether you must wait for the answer" },
      },
      required: ["question", "blocking"],
      additionalProperties: false,
    },
    _meta: ALWAYS_LOAD,
  },
] as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown, max: number) => typeof value === "string" && value.trim() !== "" && value.length <= max;

/** The call's text answer, or the reason its arguments are refused (a tool error the model can correct). */
function callTool(name: string, args: Record<string, unknown>): { text: string; isError?: true } {
  if (name === "complete_task") {
    if (!text(args.summary, SUMMARY_MAX)) return { text: `summary must be a non-empty string of at most ${SUMMARY_MAX} characters`, isError: true };
    return { text: "Recorded. The platform completes the task when this turn ends." };
  }
  if (!text(args.question, QUESTION_MAX)) return { text: `question must be a non-empty string of at most ${QUESTION_MAX} characters`, isError: true };
  if (typeof args.blocking !== "boolean") return { text: "blocking must be true or false", isError: true };
  return {
    text: args.blocking
      ? "Recorded. The question is shown to the task's people when this turn ends: end your turn now; the answer comes as the next message."
      : "Recorded. The question is shown to the task's people when this turn ends; go on meanwhile. An answer comes as a later message.",
  };
}

const failure = (id: Id, code: number, message: string): RpcAnswer => ({ jsonrpc: "2.0", id, error: { code, message } });

/**
 * The answer to one JSON-RPC message; undefined for notifications and for responses (the
 * server sends no requests, so none is awaited).
 *
 * @example answerMessage({ jsonrpc: "2.0", id: 1, method: "ping" }) // { jsonrpc: "2.0", id: 1, result: {} }
 */
export function answerMessage(message: unknown): RpcAnswer | undefined {
  if (!isObject(message) || message.jsonrpc !== "2.0") return failure(null, -32600, "not a JSON-RPC 2.0 message");
  const hasId = "id" in message;
  const id = message.id;
  if (hasId && typeof id !== "string" && typeof id !== "number") return failure(null, -32600, "id must be a string or a number");
  if (typeof message.method !== "string") {
    if ("result" in message || "error" in message) return undefined;
    return failure(hasId ? (id as Id) : null, -32600, "method must be a string");
  }
  if (!hasId) return undefined;
  const ok = (result: Json): RpcAnswer => ({ jsonrpc: "2.0", id: id as Id, result });
  const params = isObject(message.params) ? message.params : {};
  switch (message.method) {
    case "initialize": {
      const asked = params.protocolVersion;
      const version = MCP_PROTOCOL_VERSIONS.find((v) => v === asked) ?? MCP_PROTOCOL_VERSIONS[0];
      return ok({ protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: MCP_SERVER_NAME, version: "1.0.0" } });
    }
    case "ping":
      return ok({});
    case "tools/list":
      return ok({ tools: MCP_TOOLS as unknown as Json });
    case "tools/call": {
      const name = params.name;
      if (typeof name !== "string" || !MCP_TOOLS.some((tool) => tool.name === name)) return failure(id as Id, -32602, `unknown tool ${String(name)}`);
      const answer = callTool(name, isObject(params.arguments) ? params.arguments : {});
      return ok({ content: [{ type: "text", text: answer.text }], ...(answer.isError ? { isError: true } : {}) });
    }
    default:
      return failure(id as Id, -32601, `method not found: ${message.method}`);
  }
}

/** The answer to one line of input (a message or a batch of them), or undefined when none is due. */
export function answerLine(line: string): RpcAnswer | RpcAnswer[] | undefined {
  if (line.trim() === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return failure(null, -32700, "parse error");
  }
  if (!Array.isArray(parsed)) return answerMessage(parsed);
  if (parsed.length === 0) return failure(null, -32600, "empty batch");
  const answers = parsed.map(answerMessage).filter((a): a is RpcAnswer => a !== undefined);
  return answers.length ? answers : undefined;
}

/** Serves until the client closes stdin. */
export async function serveMcp(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stdout): Promise<number> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    const answer = answerLine(line);
    if (answer !== undefined) output.write(`${JSON.stringify(answer)}\n`);
  }
  return 0;
}
