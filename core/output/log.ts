/**
 * Structured logs (ERR-003, ERR-004, ERR-005): one JSON line per event with run, guild,
 * agent, operation and traceback. Every string passes the run redaction set, and keys
 * that may carry prompts, payloads or tool results are dropped at any depth, because a
 * log line outlives the run and reaches people who may not see the run itself.
 */
import type { Redactor } from "./redaction";

export type LogLevel = "debug" | "info" | "warn" | "error";

/** Fields of one log event. Anything else is logged too, minus the denylisted keys. */
export interface LogFields {
  /** What was being done, dotted: `generation.model_call`, `schedule.fire`. */
  operation: string;
  run_id?: string | null;
  guild_id?: string | null;
  agent_id?: string | null;
  /** An Error (message logged, stack as `traceback`) or any value describing the failure. */
  error?: unknown;
  [key: string]: unknown;
}

/**
 * Keys never logged, at any depth (ERR-005): they name prompts, message payloads, tool
 * arguments and tool results. Matching ignores case. The line lists what it dropped under
 * `omitted`, so a reader knows data was withheld rather than absent.
 */
export const LOG_DENYLIST: ReadonlySet<string> = new Set([
  "prompt",
  "system_prompt",
  "messages",
  "payload",
  "content",
  "arguments",
  "result",
  "tool_result",
  "body",
]);

/** Longest string logged; longer ones are cut (after redaction, so no half secret is left). */
const MAX_STRING = 4000;
const MAX_DEPTH = 6;

/**
 * Writes one JSON line: `console.error` for warn and error, `console.log` otherwise.
 * Never throws: a log call must not turn a handled failure into another one.
 *
 * @example
 * logEvent("error", { operation: "generation.model_call", run_id, agent_id, error: err }, redactor);
 * // {"level":"error","at":"…","operation":"generation.model_call","run_id":"…","error":"Error: 502","traceback":"Error: 502\n    at …"}
 */
export function logEvent(level: LogLevel, fields: LogFields, redactor?: Redactor): void {
  let line: string;
  try {
    line = formatLogLine(level, fields, redactor);
  } catch {
    line = JSON.stringify({ level, at: new Date().toISOString(), operation: "log.format_failed" });
  }
  if (level === "error" || level === "warn") console.error(line);
  else console.log(line);
}

/**
 * The JSON line `logEvent` writes, without writing it (pure, for tests and other sinks).
 * Key order: level, at, operation, run_id, guild_id, agent_id, other fields, error,
 * traceback, omitted.
 *
 * @example formatLogLine("info", { operation: "run.create", payload: "…" }, undefined, new Date(0))
 * // '{"level":"info","at":"1970-01-01T00:00:00.000Z","operation":"run.create","omitted":["payload"]}'
 */
export function formatLogLine(level: LogLevel, fields: LogFields, redactor?: Redactor, now: Date = new Date()): string {
  const omitted: string[] = [];
  const clean = (value: unknown, path: string): unknown => sanitize(value, path, redactor, omitted, new WeakSet(), 0);
  const { operation, run_id, guild_id, agent_id, error, level: _level, at: _at, ...rest } = fields;
  const entry: Record<string, unknown> = { level, at: now.toISOString(), operation: clean(operation, "operation") };
  if (run_id != null) entry.run_id = clean(run_id, "run_id");
  if (guild_id != null) entry.guild_id = clean(guild_id, "guild_id");
  if (agent_id != null) entry.agent_id = clean(agent_id, "agent_id");
  for (const [key, value] of Object.entries(rest)) {
    if (LOG_DENYLIST.has(key.toLowerCase())) omitted.push(key);
    else if (value !== undefined) entry[redactor ? redactor.redact(key) : key] = clean(value, key);
  }
  if (error instanceof Error) {
    const { message, traceback } = describeError(error);
    entry.error = clean(message, "error");
    if (traceback) entry.traceback = clean(traceback, "traceback");
  } else if (error !== undefined) {
    // A plain value passes the same denylist as any other field.
    entry.error = clean(error, "error");
  }
  if (omitted.length > 0) entry.omitted = omitted;
  return JSON.stringify(entry);
}

/**
 * `Name: message` and the stack, following `cause` chains into the traceback.
 *
 * @example describeError(new Error("boom")).message // "Error: boom"
 */
export function describeError(error: unknown): { message: string; traceback?: string } {
  if (!(error instanceof Error)) {
    return { message: typeof error === "string" ? withoutQueryParams(error) : safeJson(error) };
  }
  const message = withoutQueryParams(`${error.name}: ${error.message}`);
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    parts.push(withoutQueryParams(current.stack ?? `${current.name}: ${current.message}`));
    current = current.cause;
  }
  return { message, traceback: parts.join("\nCaused by: ") };
}

/**
 * Drops the bound parameters a failed query's message lists (drizzle writes
 * `Failed query: <sql>\nparams: <values>`): they are row payloads, which logs omit (ERR-005).
 *
 * @example withoutQueryParams("Failed query: insert …\nparams: 1,secret text") // "Failed query: insert …\nparams: [omitted]"
 */
export function withoutQueryParams(text: string): string {
  return text.replace(/(\bparams:)[^\n]*/g, "$1 [omitted]");
}

/**
 * Drops connection strings (they carry the database password) and WebSocket addresses
 * (the local proxy's carries its secret path) from a driver's error text.
 *
 * @example withoutAddresses("connect postgres://u:pw@h/db failed") // "connect postgres://… failed"
 */
export function withoutAddresses(text: string): string {
  return text.replace(/postgres(ql)?:\/\/\S+/g, "postgres://…").replace(/wss?:\/\/\S+/g, "ws://…");
}

function sanitize(value: unknown, path: string, redactor: Redactor | undefined, omitted: string[], seen: WeakSet<object>, depth: number): unknown {
  if (typeof value === "string") return cut(redactor ? redactor.redact(value) : value);
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "boolean" || value === null) return value;
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object") return undefined; // functions, symbols, undefined
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (value instanceof Error) return sanitize(describeError(value).message, path, redactor, omitted, seen, depth);
  if (seen.has(value)) return "[Circular]";
  if (depth >= MAX_DEPTH) return "[Depth]";
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      return value.map((item, i) => sanitize(item, `${path}.${i}`, redactor, omitted, seen, depth + 1) ?? null);
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (LOG_DENYLIST.has(key.toLowerCase())) {
        omitted.push(`${path}.${key}`);
        continue;
      }
      const clean = sanitize(item, `${path}.${key}`, redactor, omitted, seen, depth + 1);
      if (clean !== undefined) out[redactor ? redactor.redact(key) : key] = clean;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

function cut(text: string): string {
  return text.length <= MAX_STRING ? text : `${text.slice(0, MAX_STRING)}…[${text.length - MAX_STRING} chars cut]`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
