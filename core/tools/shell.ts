import * as z from "zod";
import { SandboxError, sandboxFailureText, sandboxMissingText } from "./sandbox-error";
import type { SandboxExecResult, ToolDefinition } from "./types";

/** Longest command, in characters. */
export const SHELL_COMMAND_MAX = 100_000;
/** Timeout of a command when the model gives none, and the longest it may ask for. */
export const SHELL_DEFAULT_TIMEOUT_S = 120;
export const SHELL_MAX_TIMEOUT_S = 3600;

/**
 * Runs a bash command in the agent's box (REPO-030), as root, with GUILD_RUN_ID and
 * GUILD_AGENT_ID set for commit trailers (SEC-019). The output goes through the standard
 * pipeline like every result (redaction, 64 KiB cap, budget trailer); cancelling the
 * generation kills the command (CANCEL-001). Offered when the agent's coding flag is on.
 *
 * @example shell({ command: "ls" }) // "README.md\nsrc\n[exit code 0 after 0.1 s]"
 */
export const shell: ToolDefinition<{ command: string; cwd?: string; timeout_s?: number }> = {
  name: "shell",
  description:
    "Run a bash command in your sandbox (Debian, as root). Returns stdout and stderr interleaved, then the exit code. " +
    "Your home /home/agent persists between sandboxes; installed packages and running processes do not. " +
    "Start long-running servers in the background (nohup ... &).",
  binding: "coding",
  parameters: z.strictObject({
    command: z.string().min(1).max(SHELL_COMMAND_MAX).describe("The bash command line"),
    cwd: z.string().min(1).max(4096).optional().describe("Absolute working directory (default /home/agent)"),
    timeout_s: z
      .number()
      .int()
      .min(1)
      .max(SHELL_MAX_TIMEOUT_S)
      .optional()
      .describe(`Seconds before the command and everything it started are killed (default ${SHELL_DEFAULT_TIMEOUT_S})`),
  }),
  async execute(args, ctx) {
    if (!ctx.sandbox) return { content: sandboxMissingText("shell") };
    const timeoutS = args.timeout_s ?? SHELL_DEFAULT_TIMEOUT_S;
    try {
      const result = await ctx.sandbox.exec(
        {
          command: args.command,
          ...(args.cwd !== undefined ? { cwd: args.cwd } : {}),
          timeoutMs: timeoutS * 1000,
          env: { GUILD_RUN_ID: ctx.runId, GUILD_AGENT_ID: ctx.agentId },
        },
        ctx.signal,
      );
      return { content: shellText(result, timeoutS) };
    } catch (error) {
      if (error instanceof SandboxError) return { content: sandboxFailureText(error) };
      throw error;
    }
  },
};

/**
 * The model's view of a finished command: its output, then one status line.
 *
 * @example shellText({ exitCode: 2, output: "no such file\n", timedOut: false, killed: false, truncated: false, durationMs: 40 }, 120)
 * // "no such file\n[exit code 2 after 0.0 s]"
 */
export function shellText(result: SandboxExecResult, timeoutS: number, timeoutLine?: string): string {
  const body = result.output.length === 0 ? "(no output)\n" : result.output.endsWith("\n") ? result.output : `${result.output}\n`;
  const seconds = (result.durationMs / 1000).toFixed(1);
  let status: string;
  if (result.timedOut) status = `[${timeoutLine ?? `timed out after ${timeoutS} s: the command and everything it started were killed`}]`;
  else if (result.killed) status = "[killed: the command was cancelled]";
  else if (result.exitCode === null) status = `[ended by a signal after ${seconds} s]`;
  else status = `[exit code ${result.exitCode} after ${seconds} s]`;
  return body + status;
}

export const CODING_TOOLS = [shell] as const;
