/**
 * The extra Claude Code flags an agent's task harness may pass (`task_harness.extra_flags`),
 * stored as a list with each flag and its value as separate items. Only the flags below are
 * allowed: none of them changes the stream the platform reads, where the traffic goes, which
 * session runs, where the key comes from or what lies outside /data/workspace. Everything else
 * is refused, the known dangerous flags with the reason.
 *
 * @example extraFlagIssues(["--effort", "high", "--add-dir", "/etc"]) // [{ index: 3, message: "must be a path under /data/workspace" }]
 */

/** The workspace a task's box works in; `--add-dir` may name only paths under it. */
export const WORKSPACE_DIR = "/data/workspace";

/** A model name as Claude Code takes one: an alias or a full name, `[1m]`-style suffix included; never a flag. */
export const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@+[\]-]{0,199}$/;

interface AllowedFlag {
  /** What the flag's value must be, or null for a flag without one. */
  value: { test: (value: string) => boolean; says: string } | null;
  /** It may be given more than once (Claude Code collects each value). */
  repeats: boolean;
  /** One line for the operator: what it does. */
  about: string;
}

const EFFORTS = ["low", "medium", "high", "xhigh", "max"];

function workspacePath(value: string): boolean {
  if (!/^\/data\/workspace(\/[A-Za-z0-9._@+-]+)*\/?$/.test(value)) return false;
  return value.split("/").every((segment) => segment !== "." && segment !== "..");
}

/** The allowlist, by flag. */
export const ALLOWED_FLAGS: Readonly<Record<string, AllowedFlag>> = {
  "--add-dir": {
    value: { test: workspacePath, says: `must be a path under ${WORKSPACE_DIR}` },
    repeats: true,
    about: "another directory Claude Code may work in",
  },
  "--fallback-model": {
    value: { test: (v) => v.split(",").every((name) => MODEL_NAME.test(name)), says: "must be a model name, or several separated by commas" },
    repeats: false,
    about: "models to fall back to when the main one is busy",
  },
  "--betas": {
    value: { test: (v) => /^[a-z0-9][a-z0-9-]{0,99}$/.test(v), says: "must be a beta header name such as context-1m-2025-08-07" },
    repeats: true,
    about: "a beta header for the provider's requests",
  },
  "--effort": {
    value: { test: (v) => EFFORTS.includes(v), says: `must be one of ${EFFORTS.join(", ")}` },
    repeats: false,
    about: "the model's effort level",
  },
  "--strict-mcp-config": { value: null, repeats: false, about: "only the MCP servers the platform configures" },
  "--disable-slash-commands": { value: null, repeats: false, about: "no skills or slash commands" },
  "--exclude-dynamic-system-prompt-sections": { value: null, repeats: false, about: "per-machine prompt sections move to the first message" },
};

const STREAM = "the platform decides how Claude Code reads its prompts and writes its stream";
const SESSION = "the platform keeps the session: it starts, resumes and names it";
const REACH = "it could load code, settings or servers from outside the workspace, or send traffic past the gateway";
const PROMPT = "the platform sends its own system prompt";
const PERMISSIONS = "use task_harness.permission_mode and the tool lists";

/** Why a known flag is refused; any flag not in ALLOWED_FLAGS is refused either way. */
const REFUSED: Readonly<Record<string, string>> = {
  "--model": "task_harness.model sets it",
  "--max-turns": "task_harness.max_turns sets it",
  "--permission-mode": "task_harness.permission_mode sets it",
  "--allowedTools": "task_harness.allowed_tools sets it",
  "--allowed-tools": "task_harness.allowed_tools sets it",
  "--disallowedTools": "task_harness.disallowed_tools sets it",
  "--disallowed-tools": "task_harness.disallowed_tools sets it",
  "--tools": "task_harness.disallowed_tools takes tools away",
  "--dangerously-skip-permissions": PERMISSIONS,
  "--allow-dangerously-skip-permissions": PERMISSIONS,
  "--permission-prompts": PERMISSIONS,
  "--restricted": PERMISSIONS,
  "-p": STREAM,
  "--print": STREAM,
  "--output-format": STREAM,
  "--input-format": STREAM,
  "--verbose": STREAM,
  "--include-partial-messages": STREAM,
  "--include-hook-events": STREAM,
  "--replay-user-messages": STREAM,
  "--forward-subagent-text": STREAM,
  "--json-schema": STREAM,
  "--prompt-suggestions": STREAM,
  "--brief": STREAM,
  "-r": SESSION,
  "--resume": SESSION,
  "-c": SESSION,
  "--continue": SESSION,
  "--session-id": SESSION,
  "--fork-session": SESSION,
  "--no-session-persistence": SESSION,
  "--from-pr": SESSION,
  "-n": SESSION,
  "--name": SESSION,
  "--bg": SESSION,
  "--background": SESSION,
  "--cloud": SESSION,
  "--teleport": SESSION,
  "--environment": SESSION,
  "--remote-control": SESSION,
  "-w": SESSION,
  "--worktree": SESSION,
  "--tmux": SESSION,
  "--settings": REACH,
  "--setting-sources": REACH,
  "--mcp-config": REACH,
  "--bare": REACH,
  "--agent": REACH,
  "--agents": REACH,
  "--plugin-dir": REACH,
  "--plugin-url": REACH,
  "--file": REACH,
  "--chrome": REACH,
  "--ide": REACH,
  "--desktop": REACH,
  "-d": "debug output may carry credentials",
  "--debug": "debug output may carry credentials",
  "--debug-file": "debug output may carry credentials",
  "--system-prompt": PROMPT,
  "--system-prompt-file": PROMPT,
  "--append-system-prompt": PROMPT,
  "--append-system-prompt-file": PROMPT,
  "--system-prompt-snapshot": PROMPT,
};

/** At most this many items (flags and values together), each at most EXTRA_FLAG_CHARS long. */
export const MAX_EXTRA_FLAG_ITEMS = 32;
export const EXTRA_FLAG_CHARS = 500;

const allowedNames = () => Object.keys(ALLOWED_FLAGS).join(", ");

function refusal(flag: string): string {
  const known = REFUSED[flag] ?? (flag.startsWith("--dangerously") ? PERMISSIONS : undefined);
  // An unknown item is not echoed: it may be anything, up to EXTRA_FLAG_CHARS long.
  return known ? `${flag} is not allowed: ${known}` : `not an allowed flag (allowed: ${allowedNames()})`;
}

/**
 * What is wrong with a list of extra flags, by item: read as Claude Code's parser would, a
 * flag then its value when it takes one. A stray value, a `--flag=value` item, an unknown or
 * refused flag, a missing or bad value and a second use of a single flag are each named.
 */
export function extraFlagIssues(items: readonly string[]): Array<{ index: number; message: string }> {
  const issues: Array<{ index: number; message: string }> = [];
  const seen = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (!item.startsWith("-")) {
      issues.push({ index: i, message: "must be a flag (a value follows the flag that takes it)" });
      continue;
    }
    const equals = item.indexOf("=");
    if (equals > 0) {
      const flag = item.slice(0, equals);
      const allowed = ALLOWED_FLAGS[flag];
      issues.push({ index: i, message: allowed ? "give the flag and its value as separate items" : refusal(flag) });
      continue;
    }
    const allowed = ALLOWED_FLAGS[item];
    if (!allowed) {
      issues.push({ index: i, message: refusal(item) });
      // Skip what looks like the refused flag's value: one refusal says it all.
      if (i + 1 < items.length && !items[i + 1]!.startsWith("-")) i++;
      continue;
    }
    if (seen.has(item) && !allowed.repeats) issues.push({ index: i, message: `${item} is given more than once` });
    seen.add(item);
    if (!allowed.value) continue;
    const value = items[i + 1];
    if (value === undefined || value.startsWith("-")) {
      issues.push({ index: i, message: `${item} needs a value as the next item` });
      continue;
    }
    i++;
    if (!allowed.value.test(value)) issues.push({ index: i, message: allowed.value.says });
  }
  return issues;
}

/**
 * The extra flags as arguments for Claude Code's command line, each valued flag written as
 * `--flag=value`: a flag that takes several values (`--add-dir`, `--betas`) then cannot take
 * the arguments after it (the prompt included) as more of its values.
 *
 * @example extraFlagArgv(["--add-dir", "/data/workspace/lib", "--strict-mcp-config"]) // ["--add-dir=/data/workspace/lib", "--strict-mcp-config"]
 */
export function extraFlagArgv(items: readonly string[]): string[] {
  const argv: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const flag = items[i]!;
    const allowed = ALLOWED_FLAGS[flag];
    if (!allowed) continue;
    if (!allowed.value) argv.push(flag);
    else if (i + 1 < items.length) argv.push(`${flag}=${items[++i]}`);
  }
  return argv;
}
