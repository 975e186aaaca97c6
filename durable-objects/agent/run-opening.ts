import { eq } from "drizzle-orm";
import type { Database } from "../../core/db/client";
import { agents, notes } from "../../core/db/schema";
import { readMemory } from "../../core/db/memory";
import { resolveSecrets } from "../../core/db/secrets";
import type { ChatPayload } from "../../core/projection/types";
import { composeSystemPrompt } from "../../core/prompt/system-prompt";
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
 * (notes, secrets, Memory, the UTC clock). Direct, group and schedule runs share it.
 */
export async function prepareOpening(db: Database, agent: AgentRow, kind: RunKind, now: Date): Promise<RunOpening> {
  const tools = toolSchemas(offeredTools({ kind, ...agent })) as OfferedTool[];
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
    }),
  };
  return { snapshot: buildSnapshot(agent, tools, secretRefs), system };
}
