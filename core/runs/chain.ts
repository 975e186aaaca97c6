/**
 * Run chains (CHAIN-001..022): when a coding run's projected prompt reaches 70% of
 * max_input_tokens, it asks the model for a hand-off in text and continues in a new run.
 * Pure: the decision, the fixed texts and the metadata a continuation carries.
 */

/** The share of max_input_tokens at which a coding run hands off (CHAIN-002). */
export const HANDOFF_SHARE = 0.7;
/** A chain holds at most this many runs; the last one records generation.max_chain (CHAIN-017). */
export const MAX_CHAIN_RUNS = 5;

/**
 * The hand-off request, a fixed template versioned with the projection policy (OP-CHAIN-1):
 * the key is projection_policy_version, so a later wording never changes what an old
 * run's replay shows.
 */
const HANDOFF_REQUESTS: Record<number, string> = {
  1: [
    "This run is handing off to a new run because its context is filling up.",
    "Reply with text only. Do not call any tool: a tool call now is not run.",
    "Write the hand-off under exactly these five headings:",
    "## Goal",
    "## Done",
    "## Decided",
    "## Remaining",
    "## Files (each as path:line, with why it matters)",
    "The next run sees only this text, Memory, notes and the working tree.",
  ].join("\n"),
};

/** The result every tool call of the hand-off reply gets instead of running (CHAIN-004). */
export const HANDOFF_TOOL_RESULT = "ERROR: a hand-off was requested; reply with text only";

/** What a continuation says when the hand-off reply had no text (CHAIN-007). */
export const NO_HANDOFF_NOTE = "The previous run gave no hand-off text: work from Memory, notes, and the working tree.";

/** metadata.chain of a continuation run (CHAIN-009). */
export interface ChainLink {
  root_run_id: string;
  /** 2 for the first continuation, growing by one along the chain. */
  index: number;
  previous_run_id: string;
}

/**
 * The hand-off request for a projection policy version; version 1's text for an unknown one.
 * @example handoffRequest(1).includes("## Remaining") // true
 */
export function handoffRequest(policyVersion: number): string {
  return HANDOFF_REQUESTS[policyVersion] ?? HANDOFF_REQUESTS[1]!;
}

/**
 * Whether the count before a model call is the hand-off point: only for coding runs
 * (CHAIN-001), at count ≥ 70% of max_input_tokens (CHAIN-002). The count is the one after
 * keep-window stubbing and before pressure stubbing (OP-CHAIN-2), so pressure stubbing
 * never hides a coding run's growth below 100%.
 * @example handoffDue({ coding: true, tokens: 700, maxInputTokens: 1000 }) // true
 */
export function handoffDue(input: { coding: boolean; tokens: number; maxInputTokens: number }): boolean {
  return input.coding && input.tokens >= HANDOFF_SHARE * input.maxInputTokens;
}

/**
 * The run's place in its chain: 1 for a run that is no continuation.
 * @example chainIndex({ chain: { root_run_id: "a", index: 3, previous_run_id: "b" } }) // 3
 */
export function chainIndex(metadata: Record<string, unknown>): number {
  const chain = metadata.chain as Partial<ChainLink> | undefined;
  return typeof chain?.index === "number" ? chain.index : 1;
}

/** Whether a run at the hand-off point is the chain's last allowed run (CHAIN-017). */
export function chainFull(metadata: Record<string, unknown>): boolean {
  return chainIndex(metadata) >= MAX_CHAIN_RUNS;
}

/**
 * The metadata.chain of the run that continues `runId`.
 * @example nextLink("r1", {}) // { root_run_id: "r1", index: 2, previous_run_id: "r1" }
 */
export function nextLink(runId: string, metadata: Record<string, unknown>): ChainLink {
  const chain = metadata.chain as Partial<ChainLink> | undefined;
  return { root_run_id: chain?.root_run_id ?? runId, index: chainIndex(metadata) + 1, previous_run_id: runId };
}

/**
 * The continuation's one user message (CHAIN-006/007): `Continuation: {...}` with the
 * hand-off text, or null and a note when the reply had none.
 * @example continuationMessage("r1", "## Goal ...") // 'Continuation: {"previous_run_id":"r1","handoff":"## Goal ..."}'
 */
export function continuationMessage(previousRunId: string, handoff: string | null): string {
  const text = handoff?.trim() ? handoff : null;
  const body = text === null ? { previous_run_id: previousRunId, handoff: null, note: NO_HANDOFF_NOTE } : { previous_run_id: previousRunId, handoff: text };
  return `Continuation: ${JSON.stringify(body)}`;
}

/**
 * What a continuation keeps from the run it continues, by kind: a schedule run's
 * instruction_hash (CHAIN-013; schedule_id is a column), a group run's delivery range and
 * depth (CHAIN-014), so the delivery completes at the chain's end.
 */
export function keptMetadata(kind: string, metadata: Record<string, unknown>): Record<string, unknown> {
  const keys =
    kind === "schedule"
      ? ["instruction_hash"]
      : kind === "group"
        ? ["group_chat_through_seq", "group_chat_after_seq", "group_depth", "group_chat_history"]
        : [];
  return Object.fromEntries(keys.filter((k) => metadata[k] !== undefined).map((k) => [k, metadata[k]]));
}
