import type { Env } from "../../bindings/env";
import type { Database } from "../../core/db/client";
import { readWorkspace, storeWorkspaceMib } from "../../core/db/sandbox";
import { describeError, logEvent } from "../../core/output/log";
import type { GuestClient } from "../../core/sandbox/guest-client";
import { bytesToMib, homeCapBytes, overLimit, workspaceLimitMib } from "../../core/sandbox/workspace";
import type { DatabasePort } from "../common/idle-connection";
import type { EnsureOutcome } from "./lifecycle";

/**
 * The agent's workspace limit as the box's steps read it (SBX-040): the home archive's one
 * cap, and whether a box may start for a generation.
 */
export class WorkspaceLimits {
  /** The home's cap last read from the database, for when it cannot be read. */
  private lastCap: number | null = null;

  constructor(
    private readonly env: Env,
    private readonly database: DatabasePort,
  ) {}

  /**
   * The one cap of the agent's home archive: its workspace limit, read fresh so a raised
   * max_workspace_mib lets the next save through; the last one read when the database
   * cannot answer.
   */
  async homeCap(agentId: string, db?: Database): Promise<number> {
    try {
      const stored = db ? await readWorkspace(db, agentId) : await this.database.use((d) => readWorkspace(d, agentId));
      this.lastCap = homeCapBytes(stored?.maxWorkspaceMib ?? Number.MAX_SAFE_INTEGER, this.env.WORKSPACE_MAX_MIB);
    } catch (error) {
      logEvent("warn", { operation: "sandbox.home_cap", agent_id: agentId, ...describeError(error) });
    }
    return this.lastCap ?? homeCapBytes(Number.MAX_SAFE_INTEGER, this.env.WORKSPACE_MAX_MIB);
  }

  /** Measures the box's workspace and stores it (SBX-041); null, logged, when it cannot. */
  async measure(agentId: string, guest: Pick<GuestClient, "workspaceSize">, db?: Database): Promise<number | null> {
    try {
      const mib = bytesToMib((await guest.workspaceSize()).bytes);
      await (db ? storeWorkspaceMib(db, agentId, mib) : this.database.use((d) => storeWorkspaceMib(d, agentId, mib)));
      return mib;
    } catch (error) {
      logEvent("warn", { operation: "sandbox.workspace_measure", agent_id: agentId, ...describeError(error) });
      return null;
    }
  }

  /**
   * A stored size over the limit is measured again; still over, the generation fails at
   * start. Returns the message, or null when the workspace fits.
   */
  async full(db: Database, agentId: string, ensured: EnsureOutcome): Promise<string | null> {
    const stored = await readWorkspace(db, agentId);
    if (!stored) return null;
    const limit = workspaceLimitMib(stored.maxWorkspaceMib, this.env.WORKSPACE_MAX_MIB);
    if (!overLimit(stored.workspaceMib, limit)) return null;
    const mib = (ensured.ok ? await this.measure(agentId, ensured.guest, db) : null) ?? stored.workspaceMib!;
    if (!overLimit(mib, limit)) return null;
    return `The workspace holds ${mib} MiB, above its limit of ${limit} MiB; delete files from /home/agent (or raise max_workspace_mib) to continue`;
  }
}
