import { eq } from "drizzle-orm";
import type { Env } from "../../../bindings/env";
import { guildObject } from "../../../bindings/objects";
import type { Database } from "../../../core/db/client";
import { advanceCursor, deliveryRows } from "../../../core/db/group-chat";
import { agents } from "../../../core/db/schema";
import { chooseHistory, modelSelector, SELECTOR_CANDIDATES, type Selector } from "../../../core/group/history";
import { deliveryDepth, groupChatInfo, groupChatInfoMessage } from "../../../core/group/wake";
import { describeError, logEvent } from "../../../core/output/log";
import { platformRedactor } from "../../../core/output/redaction";
import type { ChatPayload } from "../../../core/projection/types";
import type { SystemPromptInput } from "../../../core/prompt/system-prompt";
import type { RunSession } from "../state/run-session";

/** What a group-triggered run opens with, beside the composed system row. */
export interface PlannedDelivery {
  /** State's group_chat_history, through the snapshot seq (GROUP-003/004). */
  groupChat: NonNullable<SystemPromptInput["groupChat"]>;
  /** The Group Chat info user row (GROUP-002). */
  wake: ChatPayload;
  wakeMetadata: Record<string, unknown>;
  /** runs.metadata: the snapshot seq the cursor advances to, and the ping-pong depth. */
  metadata: {
    group_chat_through_seq: number;
    group_chat_after_seq: number;
    group_depth: number;
    group_chat_history: { source: string; seqs: number[]; reason?: string };
  };
}

/** Rows a delivery reads for its wake at most; an agent far behind still gets the latest. */
const NEW_ROWS_MAX = 500;

/**
 * The delivery due to the agent: every public row after its cursor, through the latest
 * row now (one delivery covers them all). Null when none of those rows wakes the agent:
 * its own posts, or rows past the ping-pong depth.
 */
export async function planGroupDelivery(db: Database, env: Env, agentId: string, guildId: string): Promise<PlannedDelivery | null> {
  const { cursor, storedCursor, fresh, candidates } = await deliveryRows(db, agentId, guildId, NEW_ROWS_MAX, SELECTOR_CANDIDATES);
  // The object stopped between completing a group run and moving the cursor: catch it up.
  if (storedCursor < cursor) await advanceCursor(db, agentId, guildId, cursor);
  const depth = deliveryDepth(fresh, agentId);
  if (depth === null) return null;
  const throughSeq = fresh.at(-1)!.seq;
  const history = await chooseHistory(candidates, selectorFrom(env));
  return {
    groupChat: { throughSeq, history: history.rows },
    wake: { role: "user", content: groupChatInfoMessage(groupChatInfo(fresh, agentId)) },
    wakeMetadata: { source: "group", group_chat_through_seq: throughSeq },
    metadata: {
      group_chat_through_seq: throughSeq,
      group_chat_after_seq: cursor,
      group_depth: depth,
      group_chat_history: {
        source: history.source,
        seqs: history.rows.map((r) => r.seq),
        ...(history.reason ? { reason: platformRedactor(env).redact(history.reason) } : {}),
      },
    },
  };
}

/** The history selector, when TYPESAFE_API_KEY turns it on (GROUP-004). */
function selectorFrom(env: Env): Selector | undefined {
  const baseURL = env.GROUP_SELECTOR_BASE_URL ?? env.MODEL_BASE_URL;
  if (!env.TYPESAFE_API_KEY || !baseURL) return undefined;
  return modelSelector({ baseURL, apiKey: env.TYPESAFE_API_KEY, model: env.GROUP_SELECTOR_MODEL ?? "jev" });
}

/**
 * A group delivery is over when its run completes (GROUP-011, CANCEL-008), or for a chain
 * when its last run completes (the continuation keeps the range): the cursor advances
 * through the run's snapshot seq. A run the operator resumed delivers nothing new.
 */
export async function completeDelivery(db: Database, env: Env, session: RunSession): Promise<void> {
  const throughSeq = session.facts.metadata.group_chat_through_seq;
  if (session.facts.kind !== "group" || session.facts.status !== "completed" || typeof throughSeq !== "number") return;
  if (session.facts.metadata.resumed_at) return;
  // A group chain's delivery waits for its last run (CHAIN-015, OP-CHAIN-4).
  if (session.facts.metadata.continued_by_run_id) return;
  const { agentId, guildId } = session.scope;
  await advanceCursor(db, agentId, guildId, throughSeq);
  await reportDelivery(db, env, session.runId, agentId, guildId, throughSeq, "completed");
}

/** Tells the guild's stream who is reading its chat; the console shows it, nothing depends on it. The name is read unless given. */
export async function reportDelivery(
  db: Database,
  env: Env,
  runId: string,
  agentId: string,
  guildId: string,
  throughSeq: number,
  state: "started" | "completed",
  agentName?: string,
): Promise<void> {
  try {
    const name = agentName ?? (await db.select({ name: agents.name }).from(agents).where(eq(agents.id, agentId)).limit(1))[0]?.name;
    await guildObject(env, guildId).deliveryEvent(guildId, { agent_id: agentId, agent_name: name ?? "", run_id: runId, through_seq: throughSeq, state });
  } catch (error) {
    logEvent("warn", { operation: "group.delivery_event", agent_id: agentId, guild_id: guildId, ...describeError(error) });
  }
}
