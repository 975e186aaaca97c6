/**
 * `guilds-code harness-turn`'s pure parts: its flags, the `claude` command line and
 * environment they make, where a session's file is, and the turn's summary from claude's
 * `result` line. The process side is harness-turn.ts.
 */
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { MODEL_NAME } from "../../core/tasks/harness-flags";
import { ABSOLUTE_DIR } from "./task-args";
import { ONE_LINE, optional, parseFlags, positiveInt, required, UsageError } from "./usage";

/** Where a task's harness keeps its state: on the task's volume, so sessions travel with it. */
export const CLAUDE_CONFIG_DIR = "/data/.claude";
export const HARNESS_WORKSPACE = "/data/workspace";
/** The run's credential for the model gateway, written by the platform (mode 600). */
export const MODEL_CREDENTIAL_FILE = "/run/guilds/model-credential";

/** A session id as claude takes it (lowercase, so it names its file exactly). */
export const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HTTP_URL = /^https?:\/\/[^\s\0]+$/;
/** A tool list: one line, not mistaken for an option. */
const TOOL_LIST = /^(?!-)[^\n\r\0]{1,4000}$/;

export const PERMISSION_MODES = ["bypassPermissions", "acceptEdits", "default", "plan"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export interface HarnessTurnOptions {
  session: string;
  resume: boolean;
  promptFile: string;
  /** The prompt when a resume finds no session and the turn starts a fresh one (default: promptFile). */
  freshPromptFile?: string;
  baseUrl: string;
  /** Where the final answer is also written, for a reader whose copy of the stream was cut. */
  reportFile?: string;
  systemFile?: string;
  model?: string;
  maxTurns?: number;
  permissionMode: PermissionMode;
  allowedTools?: string;
  disallowedTools?: string;
  extraArgs: string[];
}

const FLAGS = [
  "session",
  "resume",
  "prompt-file",
  "fresh-prompt-file",
  "base-url",
  "report-file",
  "system-file",
  "model",
  "max-turns",
  "permission-mode",
  "allowed-tools",
  "disallowed-tools",
  "extra-args",
];

/** The flags of `harness-turn`; a bad one is a UsageError. */
export function parseHarnessFlags(args: string[]): HarnessTurnOptions {
  const flags = parseFlags(args, FLAGS);
  const resume = required(flags, "resume", /^(true|false)$/) === "true";
  const mode = optional(flags, "permission-mode") ?? "bypassPermissions";
  if (!(PERMISSION_MODES as readonly string[]).includes(mode)) throw new UsageError(`--permission-mode must be one of ${PERMISSION_MODES.join(", ")}`);
  return {
    session: required(flags, "session", SESSION_ID),
    resume,
    promptFile: required(flags, "prompt-file", ABSOLUTE_DIR),
    freshPromptFile: optional(flags, "fresh-prompt-file", ABSOLUTE_DIR),
    baseUrl: required(flags, "base-url", HTTP_URL),
    reportFile: optional(flags, "report-file", ABSOLUTE_DIR),
    systemFile: optional(flags, "system-file", ABSOLUTE_DIR),
    model: optional(flags, "model", MODEL_NAME),
    maxTurns: flags["max-turns"] === undefined ? undefined : positiveInt(flags, "max-turns", 1),
    permissionMode: mode as PermissionMode,
    allowedTools: optional(flags, "allowed-tools", TOOL_LIST),
    disallowedTools: optional(flags, "disallowed-tools", TOOL_LIST),
    extraArgs: flags["extra-args"] === undefined ? [] : parseExtraArgs(flags["extra-args"]),
  };
}

/**
 * The platform checks extra arguments against its allowlist; here again that they are
 * plain strings, each one argument on one line.
 */
export function parseExtraArgs(json: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new UsageError("--extra-args must be a JSON array of strings");
  }
  if (!Array.isArray(value) || !value.every((arg) => typeof arg === "string" && ONE_LINE.test(arg))) {
    throw new UsageError("--extra-args must be a JSON array of non-empty strings without line breaks or NUL");
  }
  return value as string[];
}

/**
 * Claude Code's settings for the turn. The key comes from `apiKeyHelper` (claude runs it and
 * sends its output as `x-api-key` and `Authorization: Bearer`), so no process holds it in
 * its environment. Settings given on the command line outrank the workspace's own
 * `.claude/settings.json`, whose `env` could otherwise point the gateway's address elsewhere.
 */
export function claudeSettings(baseUrl: string, credentialFile = MODEL_CREDENTIAL_FILE) {
  return { apiKeyHelper: `cat ${credentialFile}`, env: { ANTHROPIC_BASE_URL: baseUrl } };
}

/** One stdio MCP server, `guilds`: this tool's `mcp` subcommand (its tools: mcp__guilds__*). */
export const MCP_CONFIG = { mcpServers: { guilds: { type: "stdio", command: "guilds-code", args: ["mcp"] } } };

/**
 * claude's arguments for the turn. The prompt is not among them: claude reads it on stdin
 * (the prompt file), since one argument may hold at most 128 KiB and would show in `ps`.
 * `startFresh` is whether the session starts here (`--session-id`) or resumes (`--resume`).
 */
export function claudeArgs(options: HarnessTurnOptions, startFresh: boolean, credentialFile = MODEL_CREDENTIAL_FILE): string[] {
  const args = ["-p", "--output-format", "stream-json", "--verbose"];
  args.push(startFresh ? "--session-id" : "--resume", options.session);
  args.push("--settings", JSON.stringify(claudeSettings(options.baseUrl, credentialFile)));
  args.push("--mcp-config", JSON.stringify(MCP_CONFIG));
  if (options.permissionMode === "bypassPermissions") args.push("--dangerously-skip-permissions");
  else args.push("--permission-mode", options.permissionMode);
  if (options.model !== undefined) args.push("--model", options.model);
  if (options.maxTurns !== undefined) args.push("--max-turns", String(options.maxTurns));
  if (options.systemFile !== undefined) args.push("--append-system-prompt-file", options.systemFile);
  if (options.allowedTools !== undefined) args.push("--allowedTools", options.allowedTools);
  if (options.disallowedTools !== undefined) args.push("--disallowedTools", options.disallowedTools);
  return [...args, ...options.extraArgs];
}

/** Variables a harness reads its credentials and endpoints from: none is inherited. */
const HARNESS_OWN = /^(ANTHROPIC_|CLAUDE_)/;

/**
 * claude's environment: the box's, without any ANTHROPIC_* or CLAUDE_* variable it carried,
 * plus the gateway, the volume's config folder and everything that would reach the network
 * otherwise turned off. `IS_SANDBOX` lets root skip permissions.
 */
export function claudeEnv(base: NodeJS.ProcessEnv, baseUrl: string, configDir = CLAUDE_CONFIG_DIR): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined && !HARNESS_OWN.test(name)) env[name] = value;
  return {
    ...env,
    ANTHROPIC_BASE_URL: baseUrl,
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    IS_SANDBOX: "1",
  };
}

/**
 * The session's file, `<config>/projects/<folder>/<id>.jsonl`, in any project folder (claude
 * finds a session to resume in all of them), or undefined. Only a regular file counts.
 */
export async function findSessionFile(configDir: string, session: string): Promise<string | undefined> {
  const projects = join(configDir, "projects");
  const folders = await readdir(projects, { withFileTypes: true }).catch(() => []);
  for (const folder of folders) {
    if (!folder.isDirectory()) continue;
    const file = join(projects, folder.name, `${session}.jsonl`);
    const stat = await lstat(file).catch(() => undefined);
    if (stat?.isFile()) return file;
  }
  return undefined;
}

export interface TurnResult {
  subtype: string | null;
  is_error: boolean;
  num_turns: number | null;
  stop_reason: string | null;
  text: string | null;
}

/** How much of the result's text the final answer carries. */
export const RESULT_TEXT_BYTES = 4096;

/** The first `max` bytes of `text`, never cutting a character. */
export function cutUtf8(text: string, max: number): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= max) return text;
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString();
}

/** A line of claude's stream-json output that is its `result`, summed up; else undefined. */
export function turnResult(line: string): TurnResult | undefined {
  if (!line.includes('"result"')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || (parsed as { type?: unknown }).type !== "result") return undefined;
  const r = parsed as Record<string, unknown>;
  const errors = Array.isArray(r.errors) ? r.errors.filter((e): e is string => typeof e === "string") : [];
  const text = typeof r.result === "string" ? r.result : errors.length ? errors.join("\n") : null;
  return {
    subtype: typeof r.subtype === "string" ? r.subtype : null,
    is_error: r.is_error === true,
    num_turns: typeof r.num_turns === "number" ? r.num_turns : null,
    stop_reason: typeof r.stop_reason === "string" ? r.stop_reason : null,
    text: text === null ? null : cutUtf8(text, RESULT_TEXT_BYTES),
  };
}

/** The session id in claude's `system/init` line; undefined for any other line. */
export function initSessionId(line: string): string | undefined {
  if (!line.includes('"subtype":"init"')) return undefined;
  try {
    const parsed = JSON.parse(line) as { type?: unknown; session_id?: unknown };
    return parsed.type === "system" && typeof parsed.session_id === "string" ? parsed.session_id : undefined;
  } catch {
    return undefined;
  }
}
