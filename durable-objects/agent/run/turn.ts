/**
 * One turn of any run: a direct chat's message, a schedule wake-up, a group delivery, a
 * task's turn. It gathers the generation's inputs, runs the generation through a harness
 * (the platform's own loop: model calls and tools, each row committed and published as it
 * goes), checkpoints the repositories, publishes the errors, and returns one outcome that
 * says what comes next (core/runs/turn.ts): another step, a hand-off, an end, an error or
 * a limit. The chat loop (lifecycle.ts) and the task run (task/run-driver.ts) both call it
 * and act on its outcome; neither drives a generation itself.
 *
 * The harness is the seam where another way of generating plugs in (a CLI in the box that
 * writes the same rows): it gets the same inputs and returns the same result.
 *
 * @example
 *   const turn = await runTurn(context, session, claimed);
 *   if (turn.next === "handoff") await continueFrom(turn.text);
 */

import type { RunError } from "../../../core/db/transcript";
import { describeError, logEvent } from "../../../core/output/log";
import { type TurnOutcome, turnOutcome } from "../../../core/runs/turn";
import { type GenerationInputs, type GenerationOutcome, runGeneration } from "../generation/generation";
import { generationInputs } from "../generation/inputs";
import type { RunContext } from "../state/context";
import type { ActiveGeneration } from "../state/generation-lock";
import type { RunSession } from "../state/run-session";
import { recordEnding } from "./ending";

/** What generates a turn's rows on its inputs. */
export interface Harness {
  generate(context: RunContext, inputs: GenerationInputs): Promise<GenerationOutcome>;
}

/** The platform's own loop (generation.ts): the model through the provider, the tools one at a time. */
export const PLATFORM_HARNESS: Harness = { generate: runGeneration };

export interface TurnOptions {
  /** Fits the generation's inputs to the run before it starts (a task's workspace and tools, values kept out of rows). */
  prepare?: (inputs: GenerationInputs) => void;
  /** Default: the platform's own loop. */
  harness?: Harness;
}

export type Turn = TurnOutcome<RunError>;

/**
 * Runs one turn of `session` under the generation `active` holds; the caller holds the lock
 * and releases or passes it on after. Throws only what the run's ending could not be written
 * for (the caller records a platform failure).
 */
export async function runTurn(context: RunContext, session: RunSession, active: ActiveGeneration, options: TurnOptions = {}): Promise<Turn> {
  const signal = active.controller.signal;
  const inputs = await generationInputs(context, session, active.generation, signal);
  if (!inputs.ok) {
    const errors = [inputs.error];
    return turnOutcome({ status: await recordEnding(context, session, errors), errors }, signal.aborted);
  }
  options.prepare?.(inputs.generation);
  const result = await (options.harness ?? PLATFORM_HARNESS).generate(context, inputs.generation);
  // REPO-015: every generation ends with a checkpoint, a cancelled one too.
  await inputs.generation.repositories
    ?.checkpointEnd()
    .catch((error: unknown) =>
      logEvent("warn", { operation: "repository.checkpoint_end", run_id: session.runId, ...describeError(error) }, inputs.generation.redactor),
    );
  for (const e of result.errors) context.hub.publish(session.runId, "error", { run_id: session.runId, ...e });
  return turnOutcome(result, signal.aborted);
}
