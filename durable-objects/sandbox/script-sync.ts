/**
 * The box's scripts folder following the API's writes (SCRIPT-030, SCRIPT-049): a deleted
 * script leaves a running box at once; a created or replaced one reaches it only while a
 * generation runs whose snapshot lacks the name (the next ensure materialises the rest,
 * OP-SCRIPT-11).
 */

import { scriptCatalog } from "../../core/db/scripts";
import { describeError, logEvent } from "../../core/output/log";
import type { SandboxFiles } from "../../core/scripts/materialise";
import { materialisePlan, writeScriptFile } from "../../core/scripts/materialise";
import { SCRIPTS_DIR, type ScriptChange, scriptPath } from "../../core/scripts/types";
import type { DatabasePort } from "../common/idle-connection";

interface SyncInput {
  agentId: string;
  change: ScriptChange;
  /** The running box's files. */
  files: SandboxFiles;
  /** The script names of the generating run's snapshot, or null when none generates. */
  generating: ReadonlySet<string> | null;
  database: DatabasePort;
}

export async function syncScriptsToBox({ agentId, change, files, generating, database }: SyncInput): Promise<void> {
  try {
    if (change.action === "delete") await files.remove(scriptPath(change.name));
    else if (change.action === "clear") {
      // Every managed file goes; other files in the folder stay (OP-SCRIPT-7).
      for (const name of materialisePlan(await files.list(SCRIPTS_DIR), [], []).remove) await files.remove(scriptPath(name));
    } else if (generating && !generating.has(change.name)) {
      const row = await database.use((db) => scriptCatalog.get(db, agentId, change.name));
      if (row) await writeScriptFile(files, change.name, row.source);
    }
  } catch (error) {
    // The next ensure materialises the folder from the catalog and the snapshot anyway.
    logEvent("warn", { operation: "scripts.sync", agent_id: agentId, action: change.action, ...describeError(error) });
  }
}
