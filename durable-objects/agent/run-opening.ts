import { eq } from "drizzle-orm";
import type { Database } from "../../core/db/client";
import { agents, messages, notes, runs } from "../../core/db/schema";
import { countRowTokens } from "../../core/projection/token-count";
import { readMemory } from "../../core/db/memory";
import { resolveSecrets } from "../../core/db/secrets";
import type { ChatPayload } from "../../core/projection/types";
import { composeSystemPrompt, type SystemPromptInput } from "../../core/prompt/system-prompt";
import type { RunKind } from "../../core/runs/rules";
import { buildSnapshot, type OfferedTool, type RunSnapshot } from "../../core/runs/snapshot";
import { offeredTools, toolSchemas } from "../../core/tools/registry";

type AgentRow = typeof agents.$inferSelect;

export interface RunOpening {
  snapshot: RunSnapshot;
  /** Row 0: the composed system prompt (RUN-010). */
  system: ChatPayload;
}

/**
 * What every run kind opens with: the snapshot (settings, flags, offered tools for this
 * kind, secrets by name) and the composed system row with the State of this moment
 * (notes, secrets, Memory, the UTC clock, and a group run's chat history). Direct, group
 * and schedule runs share it.
 */
export async function prepareOpening(db: Database, agent: AgentRow, kind: RunKind, now: Date, groupChat?: SystemPromptInput["groupChat"]): Promise<RunOpening> {
  const tools = toolSchemas(offeredTools({ kind, ...agent, group_post: agent.groupPost })) as OfferedTool[];
  const [secretRefs, noteTitles, memory] = await Promise.all([
    resolveSecrets(db, agent),
    db.select({ title: notes.title }).from(notes).where(eq(notes.agentId, agent.id)).orderBy(notes.title),
    agent.memory ? readMemory(db, agent.id).then((m) => m.content) : Promise.resolve(""),
  ]);
  const system: ChatPayload = {
    role: "system",
    content: composeSystemPrompt({
      agent: { name: agent.name, instructions: agent.instructions },
      now,
      maxToolCalls: agent.maxToolCalls,
      kind,
      notes: noteTitles,
      secrets: secretRefs,
      ...(agent.scripting ? { scripts: [] } : {}),
      memory: { enabled: agent.memory, content: memory },
      ...(groupChat ? { groupChat } : {}),
    }),
  };
  return { snapshot: buildSnapshot(agent, tools, secretRefs), system };
}

/** A run as it opens: its row, its first message (if any), and a guard for the write. */
export interface Opening {
  kind: RunKind;
  run: { title: string | null; scheduleId?: string; metadata: Record<string, unknown> };
  /** Row 1, generation 1: the operator's message, a schedule's wake-up, a group chat's info row. */
  wake?: ChatPayload;
  wakeMetadata?: Record<string, unknown>;
  groupChat?: SystemPromptInput["groupChat"];
  /** Runs first in the opening transaction; false leaves everything unwritten. */
  claim?: (tx: Database) => Promise<boolean>;
  /** Runs once the run is written, before it generates. */
  opened?: (runId: string) => Promise<void>;
}

/**
 * Writes a run in one transaction: the claim (a schedule advancing past its fire), the
 * run, its system row, and with a first message that row at generation 1. False when
 * the claim failed. Nothing of a run is ever half-written.
 */
export async function writeOpening(db: Database, agent: AgentRow, runId: string, now: Date, opening: Opening): Promise<boolean> {
  const { snapshot, system } = await prepareOpening(db, agent, opening.kind, now, opening.groupChat);
  return db.transaction(async (tx) => {
    if (opening.claim && !(await opening.claim(tx as never))) return false;
    await tx.insert(runs).values({ id: runId, agentId: agent.id, kind: opening.kind, ...opening.run, snapshot, generation: opening.wake ? 1 : 0 });
    await tx.insert(messages).values([
      { runId, seq: 0, generation: null, role: "system", payload: system, metadata: { source: "system" }, tokenCount: countRowTokens(system, {}) },
      ...(opening.wake
        ? [{ runId, seq: 1, generation: 1, role: "user", payload: opening.wake, metadata: opening.wakeMetadata ?? {}, tokenCount: countRowTokens(opening.wake, opening.wakeMetadata ?? {}) }]
        : []),
    ]);
    return true;
  });
}

/** A one-shot run for an archived or deleted agent: nothing to retry. */
export class AgentUnavailable extends Error {
  constructor() {
    super("the agent is archived or gone");
  }
}
