import { eq } from "drizzle-orm";
import { readOpeningState } from "../../../core/db/agent-state";
import type { Database } from "../../../core/db/client";
import { riding } from "../../../core/db/outage";
import { continuationClaim, groupRowsAt, latestRunOfChain } from "../../../core/db/run-chain";
import { runs } from "../../../core/db/schema";
import { describeError, logEvent } from "../../../core/output/log";
import type { Redactor } from "../../../core/output/redaction";
import { countRowTokens } from "../../../core/projection/token-count";
import type { ChatPayload } from "../../../core/projection/types";
import { continuationMessage, HANDOFF_TOOL_RESULT, keptMetadata, nextLink } from "../../../core/runs/chain";
import type { Refusal } from "../../../core/runs/rules";
import { TAVILY_SEARCH } from "../../../core/tools/search";
import type { SseHub } from "../../common/sse-hub";
import type { RunSession } from "../state/run-session";
import { writeOpening } from "./opening";

/**
 * Opens the run that continues `session` after its hand-off (CHAIN-006..009, EXACT-027):
 * same agent and kind, a freshly prepared snapshot and system prompt, and one user row
 * `Continuation: {...}` at generation 1. The continued run's completion and
 * continued_by_run_id are written in the SAME statement as the new run (the opening's
 * claim), so an object that dies here leaves either no continuation or a whole one.
 * A schedule continuation keeps schedule_id and instruction_hash (CHAIN-013); a group one
 * keeps the delivery's range and the history its delivery chose (CHAIN-014).
 * Null when the agent is archived or gone, or the run was continued already.
 */
export async function openContinuation(db: Database, session: RunSession, handoff: string | null, nextRunId: string, now: Date): Promise<RunSession | null> {
  const { agentId, guildId } = session.scope;
  const { kind, metadata } = session.facts;
  const state = await readOpeningState(db, agentId, now);
  if (!state || state.agent.archivedAt) return null;
  const [previous] = await db.select({ title: runs.title, scheduleId: runs.scheduleId }).from(runs).where(eq(runs.id, session.runId)).limit(1);
  if (!previous) return null;
  const kept = keptMetadata(kind, metadata);
  const history = (metadata.group_chat_history as { seqs?: number[] } | undefined)?.seqs ?? [];
  const throughSeq = metadata.group_chat_through_seq;
  const groupChat = kind === "group" && typeof throughSeq === "number" ? { throughSeq, history: await groupRowsAt(db, guildId, history) } : undefined;
  const opened = await writeOpening(db, state, nextRunId, now, {
    kind,
    run: {
      title: previous.title,
      ...(kind === "schedule" && previous.scheduleId ? { scheduleId: previous.scheduleId } : {}),
      metadata: { ...kept, chain: nextLink(session.runId, metadata) },
    },
    wake: { role: "user", content: continuationMessage(session.runId, handoff) },
    wakeMetadata: { source: "continuation", previous_run_id: session.runId },
    ...(groupChat ? { groupChat } : {}),
    claim: continuationClaim(session.runId, nextRunId),
    // A continuation carries on the run's work with what it was offered (EXACT-015).
    search: session.snapshot.tools.some((t) => t.function.name === TAVILY_SEARCH),
  });
  if (!opened) return null;
  session.facts = { ...session.facts, status: "completed", metadata: { ...session.facts.metadata, continued_by_run_id: nextRunId } };
  return opened.session;
}

/**
 * `openContinuation` at the end of a generation that handed off, riding out a database
 * outage; null (logged) when no continuation could be written: the run then ends as its
 * generation left it.
 */
export async function continueAfterHandoff(
  db: Database,
  session: RunSession,
  handoff: string | null,
  now: Date,
  redactor: Redactor,
): Promise<RunSession | null> {
  return riding(() => openContinuation(db, session, handoff, crypto.randomUUID(), now)).catch((error: unknown) => {
    logEvent("error", { operation: "run.continue", run_id: session.runId, ...describeError(error) }, redactor);
    return null;
  });
}

/**
 * What recovery generates instead of recording an interruption, so a chain is not lost:
 * a hand-off whose reply committed but whose continuation was never written (its calls
 * get their hand-off results, then the continuation opens), or a written continuation
 * that never generated (see pendingContinuation). Null: recover as usual.
 */
export async function chainToPickUp(
  db: Database,
  session: RunSession,
  load: (runId: string) => Promise<RunSession | null>,
  now: Date,
): Promise<RunSession | null> {
  const handoff = unfinishedHandoff(session);
  if (!handoff) return pendingContinuation(session, load);
  for (const call of handoff.calls) {
    const payload: ChatPayload = { role: "tool", tool_call_id: call.id, content: HANDOFF_TOOL_RESULT };
    const metadata = { tool_name: call.name, tool_call_id: call.id, source: "handoff" };
    await session.commit(db, {
      generation: session.facts.generation,
      role: "tool",
      payload: payload as never,
      metadata,
      tokenCount: countRowTokens(payload, metadata),
    });
  }
  return openContinuation(db, session, handoff.text, crypto.randomUUID(), now);
}

/**
 * Tells the continued run's subscribers, and the chain root's, where the chain went
 * (CHAIN-011, SSE-004, OP-CHAIN-3): `run.continued` with the new run's id.
 */
export function announceContinuation(hub: Pick<SseHub, "publish">, previous: RunSession, next: RunSession): void {
  const chain = next.facts.metadata.chain as { root_run_id: string; index: number };
  const event = { run_id: next.runId, previous_run_id: previous.runId, root_run_id: chain.root_run_id, index: chain.index };
  hub.publish(previous.runId, "run.continued", event);
  if (chain.root_run_id !== previous.runId) hub.publish(chain.root_run_id, "run.continued", event);
}

/**
 * Whether an interrupted generation's lock leads to a continuation that has not generated
 * yet: the object died after the continuation was written (the lock still names the run it
 * continues) or after the lock passed to it, before its first model reply. That run then
 * generates now instead of being recorded interrupted, so the chain is not lost.
 */
export async function pendingContinuation(session: RunSession, load: (runId: string) => Promise<RunSession | null>): Promise<RunSession | null> {
  const nextId = session.facts.metadata.continued_by_run_id;
  const next = nextId ? await load(nextId) : session;
  if (!next?.facts.metadata.chain || next.facts.status !== "active" || next.facts.archivedAt) return null;
  if (next.facts.generation !== 1 || next.rows.some((r) => r.role === "assistant")) return null;
  return next;
}

/**
 * A hand-off whose reply committed but whose continuation was never written (the object
 * died in between): the reply's text and the tool calls still waiting for their hand-off
 * result. Null when the run did not hand off, or its continuation exists.
 */
export function unfinishedHandoff(session: RunSession): { text: string | null; calls: Array<{ id: string; name: string }> } | null {
  if (session.facts.metadata.continued_by_run_id || !session.snapshot.flags.coding) return null;
  const request = session.rows.findLastIndex((r) => r.role === "user" && r.metadata.source === "handoff");
  if (request === -1) return null;
  const reply = session.rows.slice(request + 1).find((r) => r.role === "assistant");
  if (reply?.payload.role !== "assistant") return null;
  const content = reply.payload.content;
  const text = typeof content === "string" && content.trim() ? content : null;
  return { text, calls: session.unresolvedCalls() };
}

/** A `run.continued` refusal names the chain's LATEST run, not just the next one (CHAIN-018, OP-CHAIN-6). */
export async function withLatestRun(db: Database, runId: string, refusal: Refusal): Promise<Refusal> {
  if (refusal.code !== "run.continued") return refusal;
  return { ...refusal, details: { ...refusal.details, latest_run_id: await latestRunOfChain(db, runId) } };
}
