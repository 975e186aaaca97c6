/**
 * The script tools' work for one generation (ToolContext.scripts): the live catalog in
 * Postgres for reads and writes, the run's snapshot for what executes (SCRIPT-019..039).
 */

import { sql } from "drizzle-orm";
import type { Env } from "../../../../bindings/env";
import { publishScriptsChanged } from "../../../../bindings/script-events";
import type { Database } from "../../../../core/db/client";
import { type ScriptRow, scriptCatalog } from "../../../../core/db/scripts";
import { describeError, logEvent } from "../../../../core/output/log";
import { mcpToolNames } from "../../../../core/runs/mcp-snapshot";
import type { SandboxFiles } from "../../../../core/scripts/materialise";
import { ensureScriptFile, materialiseScripts, writeScriptFile } from "../../../../core/scripts/materialise";
import { validateScriptWrite } from "../../../../core/scripts/rules";
import {
  SCRIPT_LAUNCHER,
  SCRIPT_TIMEOUT_S,
  type ScriptAuthor,
  type ScriptChange,
  ScriptLimitReached,
  type ScriptSnapshotEntry,
  scriptPath,
} from "../../../../core/scripts/types";
import { nativeToolNames } from "../../../../core/tools/registry";
import type { ScriptTools, ScriptView } from "../../../../core/tools/types";
import { positiveInt } from "../../../common/sse-hub";
import type { RunSession } from "../../state/run-session";
import type { GenerationBox } from "./box";

interface ScriptToolsInput {
  db: Database;
  env: Env;
  session: RunSession;
  box: GenerationBox | null;
  /** The names left the catalog: the snapshots the object holds drop them too (EXACT-025). */
  forget: (change: ScriptChange) => void;
}

export function scriptTools({ db, env, session, box, forget }: ScriptToolsInput): ScriptTools {
  const { agentId, guildId } = session.scope;
  const snapshotted = (name: string) => session.snapshot.scripts.find((s) => s.name === name);
  const view = (row: ScriptRow): ScriptView => ({
    name: row.key,
    description: row.description,
    parameters: (row.parameters as Record<string, unknown> | null) ?? null,
    source: row.source,
    version: row.version,
    snapshotted: snapshotted(row.key) !== undefined,
  });
  const announce = (change: ScriptChange) =>
    publishScriptsChanged(env, guildId, agentId, change).catch((error: unknown) => {
      logEvent("warn", { operation: "scripts.event", agent_id: agentId, ...describeError(error) });
    });

  return {
    list: async () => (await scriptCatalog.list(db, agentId)).map(view),
    read: async (name) => {
      const row = await scriptCatalog.get(db, agentId, name);
      return row ? view(row) : null;
    },

    async create(input) {
      // SCRIPT-009: nor the name of an MCP tool this run offers.
      const checked = validateScriptWrite(input, new Set([...nativeToolNames(), ...mcpToolNames(session.snapshot.mcp)]));
      if (!checked.ok) throw new Error(checked.issues.map((i) => `${i.field}: ${i.message}`).join("; "));
      const author: ScriptAuthor = { kind: "run", run_id: session.runId, seq: session.rows.findLast((r) => r.role === "assistant")?.seq ?? null };
      let written: Awaited<ReturnType<typeof scriptCatalog.write>>[number];
      try {
        [written] = (await scriptCatalog.write(db, agentId, [checked.value], author)) as [typeof written];
      } catch (error) {
        if (error instanceof ScriptLimitReached) throw new Error(error.message);
        throw error;
      }
      const kept = snapshotted(checked.value.name) !== undefined;
      // SCRIPT-030: a name this run snapshotted keeps its file; a new one reaches a box that is up.
      const access = box?.started;
      if (!kept && access) await writeScriptFile(access.files, checked.value.name, checked.value.source);
      await announce({ action: "create", name: checked.value.name });
      return { created: written.created, version: written.row.version, snapshotted: kept };
    },

    async remove(name) {
      if (!(await scriptCatalog.remove(db, agentId, name))) return false;
      forget({ action: "delete", name });
      // SCRIPT-028: it stops at once, so its file goes now where the box is up (the next ensure removes it otherwise).
      await box?.started?.files.remove(scriptPath(name));
      await announce({ action: "delete", name });
      return true;
    },

    async run(name, args, signal) {
      const live = await scriptCatalog.get(db, agentId, name);
      // A snapshotted name runs its frozen source; with no live row it was deleted (a resumed run keeps a stale entry).
      const script = live ? (snapshotted(name) ?? { name, source: live.source, source_hash: live.sourceHash }) : undefined;
      if (script === undefined) {
        const ownTool = session.snapshot.tools.some((t) => t.function.name === name);
        return { ok: false, missing: ownTool ? `script ${name} was deleted during this run` : `no script named ${name}` };
      }
      if (!box) return { ok: false, missing: "this run has no sandbox to run scripts in" };
      const access = box.access();
      // The file is made to hold exactly this source before each run (SCRIPT-027), whatever touched it since.
      await ensureScriptFile(access.files, script);
      const timeoutS = scriptTimeoutS(env.SCRIPT_TIMEOUT_S);
      const result = await access.exec(
        {
          command: `${SCRIPT_LAUNCHER} ${name}`,
          cwd: "/home/agent",
          timeoutMs: timeoutS * 1000,
          env: { GUILDS_SCRIPT_ARGS: JSON.stringify(args), GUILD_RUN_ID: session.runId, GUILD_AGENT_ID: agentId },
        },
        signal,
      );
      return { ok: true, result, timeoutS };
    },
  };
}

/**
 * The configured limit of one script run, 120 s unless SCRIPT_TIMEOUT_S says otherwise.
 *
 * @example scriptTimeoutS("5") // 5
 */
export function scriptTimeoutS(configured: string | undefined): number {
  const value = positiveInt(configured);
  return value !== undefined && value <= 3600 ? value : SCRIPT_TIMEOUT_S;
}

/**
 * Materialises the box's scripts folder for this run (SCRIPT-023..026). The snapshot's
 * scripts are read back with the live catalog in one statement: a script deleted through
 * the API while this object held the run reaches it here even if the object was not told.
 */
export async function materialiseRunScripts(db: Database, session: RunSession, files: SandboxFiles): Promise<void> {
  const began = Date.now();
  const { rows } = await db.execute<{ snapshot: ScriptSnapshotEntry[] | null; live: Array<Pick<ScriptSnapshotEntry, "name" | "source" | "source_hash">> }>(sql`
    select (select r.snapshot->'scripts' from runs r where r.id = ${session.runId}::uuid) as snapshot,
           coalesce((select json_agg(json_build_object('name', a.key, 'source', a.source, 'source_hash', a.source_hash))
             from artifacts a where a.agent_id = ${session.scope.agentId}::uuid and a.kind = 'script'), '[]'::json) as live`);
  const read = rows[0];
  if (Array.isArray(read?.snapshot)) session.snapshot.scripts = read.snapshot;
  const live = read?.live ?? [];
  // A deleted script stays deleted, even in a run resumed after the delete left its snapshot alone.
  const liveNames = new Set(live.map((s) => s.name));
  const plan = await materialiseScripts(
    files,
    session.snapshot.scripts.filter((s) => liveNames.has(s.name)),
    live,
  );
  if (plan.write.length || plan.remove.length) {
    logEvent("info", {
      operation: "scripts.materialise",
      run_id: session.runId,
      agent_id: session.scope.agentId,
      written: plan.write.length,
      removed: plan.remove.length,
      duration_ms: Date.now() - began,
    });
  }
}
