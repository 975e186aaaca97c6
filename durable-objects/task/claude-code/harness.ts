/**
 * Claude Code as a task's harness (TASK-015, TASK-016, TASK-034; decision 0032). A turn is
 * one `guilds-code harness-turn` in the task's box: Claude Code in /data/workspace, its
 * session on the task's volume, prompted with the turn's user rows (the task's prompt, or
 * the messages delivered at the turn boundary) and resuming the run's session after the
 * first. Its model calls come back through the model gateway, which writes the transcript
 * (gateway-turn.ts); this module starts the turn, waits for its end, and reads what it
 * ended with: the session it used, and the harness's own limit when it hit one.
 *
 * @example
 *   const harness = claudeCodeHarness(run);
 *   await runTurn(context, session, claimed, { harness });
 */

import type { RunError } from "../../../core/db/transcript";
import { guildsCodeCommand, lastJson } from "../../../core/repos/guilds-code";
import type { TaskHarness } from "../../../core/tasks/harness";
import { extraFlagArgv } from "../../../core/tasks/harness-flags";
import { TASK_WORKSPACE } from "../../../core/tasks/prompt";
import { SandboxError } from "../../../core/tools/sandbox-error";
import type { SandboxAccess } from "../../../core/tools/types";
import { recordGenerationEnd } from "../../agent/generation/ending";
import type { GenerationInputs, GenerationOutcome } from "../../agent/generation/generation";
import { interruptUnresolved } from "../../agent/generation/generation";
import type { Harness } from "../../agent/run/turn";
import type { RunContext } from "../../agent/state/context";
import { GatewayTurn } from "./gateway-turn";

/** Where a turn's files live in the box: root's own folder, which the agent's commands do not need. */
export const HARNESS_DIR = "/run/guilds/harness";
export const MODEL_CREDENTIAL_PATH = "/run/guilds/model-credential";
/** The longest command the guest runs (its exec's maxTimeoutMs): a turn longer than that is cut there. */
const GUEST_MAX_EXEC_MS = 3_600_000;

/** How the run's harness session stands, for the run report (TASK-022, TASK-033). */
export interface HarnessSession {
  session_id: string;
  /** Whether the run's first turn continued an earlier run's session. */
  resumed: boolean;
  /** Why it did not, when it was asked to (the session file was gone). */
  fresh_reason: string | null;
  turns: number;
}

export interface ClaudeCodeRun {
  settings: TaskHarness;
  /** The session to resume (an earlier run's), or a fresh id for the run's first turn. */
  sessionId: string;
  /**
   * Set when the run's first turn resumes an earlier run's session: its prompt (the messages
   * since). Should the session be gone, the turn starts a fresh one from the run's opening
   * prompt, which carries the transcript summary (TASK-033).
   */
  resumePrompt: string | null;
  /** Where the box's Claude Code reaches the model gateway for this task. */
  gatewayBase: string;
  credential: string;
  /** The model gateway's call handling for the turn in flight; null between turns. */
  serving(turn: GatewayTurn | null): void;
  keepRequest(key: string, body: string): Promise<void>;
  /** Whole turn budget: the run's wall clock. */
  timeoutMs: number;
}

/** The harness of one task run; it remembers the run's session across the run's turns. */
export function claudeCodeHarness(run: ClaudeCodeRun): Harness & { session(): HarnessSession } {
  const state: HarnessSession = { session_id: run.sessionId, resumed: false, fresh_reason: null, turns: 0 };
  let resumePrompt = run.resumePrompt;
  return {
    session: () => ({ ...state }),
    async generate(context: RunContext, inputs: GenerationInputs): Promise<GenerationOutcome> {
      const box = inputs.sandbox;
      const turn = new GatewayTurn({
        context,
        inputs,
        model: run.settings.model ?? inputs.session.snapshot.model.model,
        api: run.settings.model_api,
        keepRequest: run.keepRequest,
      });
      const errors: RunError[] = [];
      const fail = (code: string, message: string, extra: Record<string, unknown> = {}) =>
        errors.push({ code, message, generation: inputs.generation, operation: "harness", at: new Date(context.now()).toISOString(), ...extra } as RunError);
      run.serving(turn);
      try {
        if (!box) fail("sandbox.unavailable", "The task's box is not available");
        else {
          const own = turnPrompt(inputs);
          const first = state.turns === 0;
          const prompt = first && resumePrompt !== null ? resumePrompt : own;
          const ended = await runInBox(box, run, {
            prompt,
            freshPrompt: own,
            resume: !first || resumePrompt !== null,
            system: systemPrompt(inputs),
            signal: inputs.signal,
          });
          if (state.turns === 0) {
            state.resumed = ended.resumed;
            state.fresh_reason = ended.fresh_reason;
          }
          state.turns += 1;
          resumePrompt = null;
          if (ended.limit) fail(ended.limit, `Claude Code stopped: ${ended.detail}`);
          else if (ended.failed && !turn.errors.length && !inputs.signal.aborted) fail("harness.failed", `Claude Code ended with an error: ${ended.detail}`);
        }
      } catch (error) {
        if (!inputs.signal.aborted) {
          if (error instanceof SandboxError) fail("sandbox.lost", `The task's box stopped answering: ${error.message}`);
          else fail("harness.failed", `The harness could not run: ${String(error)}`);
        }
      } finally {
        turn.end("the turn is over");
        // The last reply's row is written before the turn's outcome is read.
        await turn.idle();
        run.serving(null);
      }
      if (inputs.signal.aborted) fail("generation.cancelled", "The operator cancelled the generation");
      // The gateway's failure comes first: it is why the harness stopped.
      const all = [...turn.errors, ...errors];
      await interruptUnresolved(inputs.db, inputs.session, inputs.generation).catch(() => {});
      return { errors: all, status: await recordGenerationEnd(inputs.db, inputs.session, all) };
    },
  };
}

/** The turn's prompt: the user rows since the harness last spoke (the task's prompt, delivered messages, refusals). */
export function turnPrompt(inputs: GenerationInputs): string {
  const rows = inputs.session.rows;
  const texts: string[] = [];
  for (let i = rows.length - 1; i >= 0; i--) {
    const payload = rows[i]!.payload;
    if (payload.role !== "user") break;
    texts.unshift(typeof payload.content === "string" ? payload.content : JSON.stringify(payload.content));
  }
  return texts.join("\n\n");
}

/** The agent's own system prompt (its persona, the task's rules) and how the task tools reach Claude Code. */
function systemPrompt(inputs: GenerationInputs): string {
  const system = inputs.session.rows.find((r) => r.payload.role === "system")?.payload;
  const own = system && typeof system.content === "string" ? system.content : "";
  return own ? `${own}\n\n${SYSTEM_ADDENDUM}` : SYSTEM_ADDENDUM;
}

interface TurnEnded {
  resumed: boolean;
  fresh_reason: string | null;
  /** A harness limit (its turns per prompt, its context): the run ends limit_reached. */
  limit: string | null;
  failed: boolean;
  detail: string;
}

/** One harness-turn in the box, to its end or the signal's. */
async function runInBox(
  box: SandboxAccess,
  run: ClaudeCodeRun,
  turn: { prompt: string; freshPrompt: string; resume: boolean; system: string; signal: AbortSignal },
): Promise<TurnEnded> {
  // Side by side: each is a round trip to the box, before Claude Code can start.
  await Promise.all([
    box.files.put(MODEL_CREDENTIAL_PATH, run.credential),
    box.files.put(`${HARNESS_DIR}/prompt.txt`, turn.prompt),
    box.files.put(`${HARNESS_DIR}/fresh-prompt.txt`, turn.freshPrompt),
    box.files.put(`${HARNESS_DIR}/system.txt`, turn.system),
  ]);
  const s = run.settings;
  const flags: Record<string, string | number> = {
    session: run.sessionId,
    resume: String(turn.resume),
    "prompt-file": `${HARNESS_DIR}/prompt.txt`,
    "fresh-prompt-file": `${HARNESS_DIR}/fresh-prompt.txt`,
    "system-file": `${HARNESS_DIR}/system.txt`,
    "base-url": run.gatewayBase,
    "report-file": `${HARNESS_DIR}/turn.json`,
    "max-turns": s.max_turns,
    "permission-mode": s.permission_mode,
    ...(s.model ? { model: s.model } : {}),
    ...(s.allowed_tools.length ? { "allowed-tools": s.allowed_tools.join(",") } : {}),
    ...(s.disallowed_tools.length ? { "disallowed-tools": s.disallowed_tools.join(",") } : {}),
    ...(s.extra_flags.length ? { "extra-args": JSON.stringify(extraFlagArgv(s.extra_flags)) } : {}),
  };
  const timeoutMs = Math.min(run.timeoutMs, GUEST_MAX_EXEC_MS);
  // Claude Code's stream goes to a file in the box, not through the exec's answer, whose
  // budget a long turn would pass (the transcript comes from the gateway); the answer is the
  // stream's last line, the turn's report.
  const stream = `${HARNESS_DIR}/stream.jsonl`;
  const command = `${guildsCodeCommand("harness-turn", flags)} > ${stream}; code=$?; tail -n 1 ${stream}; exit $code`;
  const ran = await box.exec({ command, cwd: TASK_WORKSPACE, timeoutMs }, turn.signal);
  let answer = reportOf(lastJson(ran.output));
  if (!answer && !turn.signal.aborted) {
    const read = await box.exec({ command: `cat ${HARNESS_DIR}/turn.json`, cwd: "/", timeoutMs: 30_000 });
    answer = reportOf(lastJson(read.output));
  }
  if (!answer) return { resumed: false, fresh_reason: null, limit: null, failed: true, detail: `exit ${ran.exitCode}: ${ran.output.slice(-300)}` };
  const result = answer.result;
  const subtype = result?.subtype ?? null;
  const limit =
    subtype === "error_max_turns"
      ? "harness.max_turns"
      : /context|prompt is too long/i.test(result?.text ?? "") && result?.is_error
        ? "harness.context_limit"
        : null;
  return {
    resumed: answer.resumed === true,
    fresh_reason: answer.fresh_reason ?? null,
    limit,
    failed: !result || result.is_error === true || (answer.exit_code ?? 0) !== 0,
    detail:
      subtype === "error_max_turns"
        ? `it used its ${run.settings.max_turns} turns for this prompt`
        : (result?.text ?? `exit ${answer.exit_code}`).slice(0, 300),
  };
}

interface HarnessReport {
  session_id: string;
  resumed?: boolean;
  fresh_reason?: string | null;
  exit_code?: number | null;
  result: { subtype?: string; is_error?: boolean; num_turns?: number; text?: string } | null;
}

function reportOf(json: unknown): HarnessReport | null {
  const report = json && typeof json === "object" ? (json as { harness_turn?: HarnessReport }).harness_turn : undefined;
  return report && typeof report.session_id === "string" ? report : null;
}

/** What Claude Code is told beside its own system prompt: the task tools are the platform's MCP server's. */
const SYSTEM_ADDENDUM = [
  "You work on a task of the platform in /data/workspace, a git checkout of the task's branch.",
  "Commit your work with git as you go; the platform pushes the branch after each turn.",
  "When the work is committed and done, call the guilds MCP tool complete_task with a short summary.",
  "When you need a person's answer, call ask_question (blocking: true when you cannot go on without it).",
].join("\n");
