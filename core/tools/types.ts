/**
 * Native tool contracts. A tool is a zod argument schema plus an `execute` over a small
 * context; the registry turns the schema into the JSON schema offered to the model and
 * validates the model's arguments against the same schema, so both always agree.
 */
import type * as z from "zod";
import type { SandboxFiles } from "../scripts/materialise";
import type { WebSearch } from "../search/tavily";

/** One tool as offered to the model (Chat Completions `tools` entry). */
export interface ToolSchema {
  type: "function";
  function: {
    name: string;
    description: string;
    /** JSON Schema (draft-7) of the arguments object, without `$schema`. */
    parameters: Record<string, unknown>;
  };
}

/** An image a tool shows the model (a browser screenshot), as base64 bytes. */
export interface ToolImage {
  mediaType: string;
  dataBase64: string;
}

/** What a tool returns. The loop passes `content` through the output pipeline. */
export interface ToolResult {
  content: string;
  /** Stored beside the result; the projector names them in stubs (PROJ-002, OP-PROJ-6). */
  metadata?: { path?: string; range?: string; secret_request?: SecretRequestInfo };
  /** One image for the model; the loop stores it like an attachment and references it from the row. */
  image?: ToolImage;
}

/** What a command run in the agent's box gives back (`output`: stdout and stderr interleaved in arrival order). */
export interface SandboxExecResult {
  exitCode: number | null;
  output: string;
  timedOut: boolean;
  killed: boolean;
  truncated: boolean;
  durationMs: number;
}

/** The agent's box as its tools reach it; implemented by the agent object over the guest. */
export interface SandboxAccess {
  /** Runs a command in the agent's box; rejects with SandboxError("sandbox.unavailable"|...) */
  exec(input: { command: string; cwd?: string; timeoutMs?: number; env?: Record<string, string> }, signal?: AbortSignal): Promise<SandboxExecResult>;
  browser(action: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ text?: string; image?: ToolImage }>;
  /** The box's file API (SBX-042), for the scripts folder. */
  files: SandboxFiles;
}

/** A secret_request as its tool row's metadata keeps it: what the operator is asked for (OP-SEC-5). */
export interface SecretRequestInfo {
  name: string;
  description: string;
  reason: string;
}

/** Per-call context. Ids come from the run; `now` is injectable for tests. */
export interface ToolContext {
  agentId: string;
  runId: string;
  /** The provider's tool-call id (RUN-017). */
  toolCallId: string;
  now(): Date;
  store: NotesRecordsStore;
  /** The agent's routines; absent where the schedule tools are not offered. */
  schedules?: ScheduleTools;
  /** The agent's Memory document; absent when Memory is off. */
  memory?: { write(content: string): Promise<void> };
  /** The guild's group chat; absent where group_post is not offered. `tagged` holds agent names. */
  group?: { post(content: string): Promise<{ seq: number; tagged: string[] }> };
  /** The agent's own secrets (secret_store); throws with a message the model reads when refused. */
  secrets?: { store(input: { name: string; description: string; value: string }): Promise<{ created: boolean }> };
  /** Aborted when the operator cancels the generation (CANCEL-001): a long tool stops early. */
  signal?: AbortSignal;
  /** The agent's box; absent where no sandbox tool is offered or none could be ensured. */
  sandbox?: SandboxAccess;
  /** The agent's scripts as this run sees them; absent when scripting is off. */
  scripts?: ScriptTools;
  /** The task a task run works on (complete_task, ask_question); absent on other runs. */
  task?: TaskTools;
  /** The run's MCP connections, where its snapshot lists any (core/tools/mcp.ts). */
  mcp?: McpCalls;
  /** The platform's web search (tavily_search); absent when the platform has no key. */
  search?: WebSearch;
}

/** A content block of a tools/call result, as far as the platform reads it. */
export type McpContentBlock =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name?: string; mimeType?: string }
  // The wire nests a resource's fields; core/mcp/client.ts hands them over flattened.
  | {
      type: "resource";
      uri?: string;
      mimeType?: string;
      text?: string;
      blob?: string;
      resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
    }
  | { type: string; [key: string]: unknown };

/** A tools/call result (MCP 2025-06-18 and later), as the server sent it. */
export interface McpCallResult {
  content?: McpContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** The connections of a run as its MCP tools reach them; a refusal is a message the model reads. */
export interface McpCalls {
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ ok: true; result: McpCallResult } | { ok: false; message: string }>;
}

/** What the task tools tell the task's run; the run acts on them at the turn's end. */
export interface TaskTools {
  /** The agent says the task is done (TASK-015). */
  complete(summary: string): void;
  /** The agent asks a person (TASK-016); blocking: the run waits for an answer. */
  ask(question: string, blocking: boolean): void;
}

/** A catalog row as script_list and script_read show it (the live catalog, SCRIPT-019). */
export interface ScriptView {
  name: string;
  description: string;
  parameters: Record<string, unknown> | null;
  source: string;
  version: number;
  /** Whether this run executes its snapshotted copy rather than this live row. */
  snapshotted: boolean;
}

/**
 * The agent's scripts for one run: the live catalog for reads and writes, the run's
 * snapshot for what executes (SCRIPT-027..031). Writes throw with a message the model reads.
 */
export interface ScriptTools {
  list(): Promise<ScriptView[]>;
  read(name: string): Promise<ScriptView | null>;
  /** `snapshotted`: this run keeps executing its own copy of the name (SCRIPT-031). */
  create(input: {
    name: string;
    description: string;
    source: string;
    parameters?: unknown;
  }): Promise<{ created: boolean; version: number; snapshotted: boolean }>;
  /** False when no script has the name. */
  remove(name: string): Promise<boolean>;
  /** Runs the script this run executes under the name; `missing` explains why none does. */
  run(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<{ ok: true; result: SandboxExecResult; timeoutS: number } | { ok: false; missing: string }>;
}

/** A routine as the schedule tools show it to the model. */
export interface ScheduleView {
  id: string;
  description: string;
  instruction: string;
  cron: string | null;
  wake_window: { timezone: string; start: string; end: string; max_wakes: number } | null;
  paused: boolean;
  next_run_at: string | null;
  last_run_at: string | null;
}

/** The agent's routines, as the schedule tools change them; null for an unknown id. */
export interface ScheduleTools {
  create(input: {
    description: string;
    instruction: string;
    cron?: string | null;
    wake_window?: ScheduleView["wake_window"];
    paused: boolean;
  }): Promise<ScheduleView>;
  list(): Promise<ScheduleView[]>;
  update(id: string, patch: Record<string, unknown>): Promise<ScheduleView | null>;
  setPaused(id: string, paused: boolean): Promise<ScheduleView | null>;
  remove(id: string): Promise<boolean>;
}

/**
 * A native tool. `binding` is the native binding that offers it (`note`, `record`,
 * later `memory`, `schedule`, …), so a run's flags can select whole bindings.
 *
 * @example
 * const echo: ToolDefinition<{ text: string }> = {
 *   name: "echo", description: "Echo text", binding: "debug",
 *   parameters: z.strictObject({ text: z.string() }),
 *   execute: async ({ text }) => ({ content: text }),
 * };
 */
export interface ToolDefinition<Args = unknown> {
  name: string;
  description: string;
  parameters: z.ZodType<Args>;
  binding: string;
  execute(args: Args, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * A definition of any argument type, as registries hold them. `ToolDefinition<{ title: string }>`
 * is assignable to it because `execute` is a method (bivariant parameters) and the zod
 * type is covariant in its output; `runTool` validates before calling `execute`.
 */
export type AnyToolDefinition = ToolDefinition<unknown>;

/** An agent note (note_* tools). Titles are unique per agent. */
export interface Note {
  title: string;
  body: string;
  updatedAt: Date;
}

/** A time-ordered agent record (record_* tools). */
export interface AgentRecord {
  id: number;
  kind: string;
  content: string;
  data: unknown;
  runId: string | null;
  createdAt: Date;
}

/**
 * Storage of notes and records, implemented over Postgres (tables `notes`, `records`).
 * Every method is scoped to one agent.
 */
export interface NotesRecordsStore {
  /** Creates or replaces the note with this title; `created` is false on a replace. */
  noteWrite(agentId: string, title: string, body: string): Promise<{ created: boolean }>;
  /** The note, or null when the agent has none with this title. */
  noteRead(agentId: string, title: string): Promise<Note | null>;
  /** Every note of the agent, by title (bodies may be left empty by the store). */
  noteList(agentId: string): Promise<{ title: string; updatedAt: Date }[]>;
  /** True when a note was deleted. */
  noteDelete(agentId: string, title: string): Promise<boolean>;
  recordCreate(agentId: string, runId: string, input: { kind: string; content: string; data?: unknown }): Promise<AgentRecord>;
  /** Newest first; with `since`, only records created strictly after it. */
  recordList(agentId: string, options: { since?: Date; limit: number }): Promise<AgentRecord[]>;
}
