import { eq } from "drizzle-orm";
import type { AnyDatabase } from "./client";
import { agents } from "./schema";

/** What a sandbox needs of its agent's row when no run snapshot says it (the Browser and CLI tabs). */
export interface SandboxAgentRow {
  id: string;
  guildId: string;
  organisationId: string;
  browser: boolean;
  coding: boolean;
  browserLanguage: string;
  archivedAt: Date | null;
}

export async function readSandboxAgent(db: AnyDatabase, agentId: string): Promise<SandboxAgentRow | null> {
  const [row] = await db
    .select({
      id: agents.id,
      guildId: agents.guildId,
      organisationId: agents.organisationId,
      browser: agents.browser,
      coding: agents.coding,
      browserLanguage: agents.browserLanguage,
      archivedAt: agents.archivedAt,
    })
    .from(agents)
    .where(eq(agents.id, agentId))
    .limit(1);
  return row ?? null;
}

/** The agent's stored workspace size and its own limit (SBX-040). */
export async function readWorkspace(db: AnyDatabase, agentId: string): Promise<{ workspaceMib: number | null; maxWorkspaceMib: number } | null> {
  const [row] = await db
    .select({ workspaceMib: agents.workspaceMib, maxWorkspaceMib: agents.maxWorkspaceMib })
    .from(agents)
    .where(eq(agents.id, agentId))
    .limit(1);
  return row ?? null;
}

/** SBX-041: the size measured after a generation (or re-measured at its start). */
export async function storeWorkspaceMib(db: AnyDatabase, agentId: string, mib: number): Promise<void> {
  await db.update(agents).set({ workspaceMib: mib }).where(eq(agents.id, agentId));
}
