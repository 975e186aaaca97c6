/**
 * Validation of `POST /exec` bodies: what a command may ask for, with the guest's bounds.
 */
import { checkAbsolutePath } from "./paths";

export interface ExecRequest {
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
}

export interface ExecLimits {
  defaultCwd: string;
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  defaultOutputBytes: number;
  maxOutputBytes: number;
}

export const DEFAULT_EXEC_LIMITS: Omit<ExecLimits, "defaultCwd"> = {
  defaultTimeoutMs: 120_000,
  maxTimeoutMs: 3_600_000,
  defaultOutputBytes: 1 << 20,
  maxOutputBytes: 16 << 20,
};

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type Parsed = { ok: true; request: ExecRequest } | { ok: false; code: string; message: string };

function positiveInt(value: unknown, name: string, fallback: number, max: number): number | string {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) return `${name} must be a positive integer`;
  if (value > max) return `${name} must be at most ${max}`;
  return value;
}

/**
 * Checks a parsed JSON body.
 *
 * @example parseExecRequest({ command: "ls", timeout_ms: 5000 }, limits)
 *   // { ok: true, request: { command: "ls", cwd: limits.defaultCwd, env: {}, timeoutMs: 5000, ... } }
 */
export function parseExecRequest(body: unknown, limits: ExecLimits): Parsed {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { ok: false, code: "exec.invalid", message: "body must be a JSON object" };
  const b = body as Record<string, unknown>;
  if (typeof b.command !== "string" || b.command.trim() === "") return { ok: false, code: "exec.invalid", message: "command must be a non-empty string" };
  let cwd = limits.defaultCwd;
  if (b.cwd !== undefined && b.cwd !== null) {
    if (typeof b.cwd !== "string") return { ok: false, code: "exec.invalid", message: "cwd must be a string" };
    const checked = checkAbsolutePath(b.cwd, "cwd");
    if (!checked.ok) return { ok: false, code: checked.code, message: checked.message };
    cwd = checked.path;
  }
  const env: Record<string, string> = {};
  if (b.env !== undefined && b.env !== null) {
    if (typeof b.env !== "object" || Array.isArray(b.env)) return { ok: false, code: "exec.invalid", message: "env must be an object of strings" };
    for (const [name, value] of Object.entries(b.env)) {
      if (!ENV_NAME.test(name)) return { ok: false, code: "exec.invalid", message: `env name ${JSON.stringify(name)} is not a valid variable name` };
      if (typeof value !== "string") return { ok: false, code: "exec.invalid", message: `env ${name} must be a string` };
      env[name] = value;
    }
  }
  const timeoutMs = positiveInt(b.timeout_ms, "timeout_ms", limits.defaultTimeoutMs, limits.maxTimeoutMs);
  if (typeof timeoutMs === "string") return { ok: false, code: "exec.invalid", message: timeoutMs };
  const maxOutputBytes = positiveInt(b.max_output_bytes, "max_output_bytes", limits.defaultOutputBytes, limits.maxOutputBytes);
  if (typeof maxOutputBytes === "string") return { ok: false, code: "exec.invalid", message: maxOutputBytes };
  return { ok: true, request: { command: b.command, cwd, env, timeoutMs, maxOutputBytes } };
}
