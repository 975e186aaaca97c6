/**
 * Materialisation (SCRIPT-023..026): the box's scripts folder made to match what a run
 * executes. Step 1 writes the run's snapshot, step 2 the live rows whose names the
 * snapshot lacks (created during the run, callable through script_run), step 3 removes
 * managed files of neither set (OP-SCRIPT-7: `<name>.py` files; nothing else is touched).
 *
 * A file whose SHA-256 already equals the row's source_hash is left as it is: the bytes
 * would be the same, and a warm generation then costs one listing instead of three calls
 * per script.
 */
import { SCRIPTS_DIR, type ScriptSnapshotEntry, scriptPath } from "./types";

/** The guest's /files routes as materialisation uses them. */
export interface SandboxFiles {
  /** Entries of a folder, [] when it does not exist; sha256 for regular files. */
  list(dir: string): Promise<Array<{ name: string; type: string; sha256?: string }>>;
  put(path: string, text: string): Promise<void>;
  /** Resolves also when the file is already gone. */
  remove(path: string): Promise<void>;
  /** Refuses to overwrite. */
  move(from: string, to: string): Promise<void>;
}

export type ScriptFiles = SandboxFiles;

/** What one materialisation changes: sources to write by name, managed files to remove. */
export interface MaterialisePlan {
  write: Array<{ name: string; source: string }>;
  remove: string[];
}

const MANAGED = /^([a-z][a-z0-9_-]{0,62})\.py$/;

/**
 * @example materialisePlan([{ name: "old.py", type: "file", sha256: "…" }], [{ name: "fx", source: "print(1)", source_hash: "…" }], [])
 * // { write: [{ name: "fx", source: "print(1)" }], remove: ["old"] }
 */
export function materialisePlan(
  existing: ReadonlyArray<{ name: string; type: string; sha256?: string }>,
  snapshot: ReadonlyArray<Pick<ScriptSnapshotEntry, "name" | "source" | "source_hash">>,
  live: ReadonlyArray<Pick<ScriptSnapshotEntry, "name" | "source" | "source_hash">>,
): MaterialisePlan {
  const wanted = new Map(snapshot.map((s) => [s.name, s]));
  for (const row of live) if (!wanted.has(row.name)) wanted.set(row.name, row);
  const onDisk = new Map<string, { type: string; sha256?: string }>();
  for (const entry of existing) {
    const managed = MANAGED.exec(entry.name);
    if (managed) onDisk.set(managed[1]!, entry);
  }
  const write = [...wanted.values()]
    .filter((s) => {
      const file = onDisk.get(s.name);
      return !(file?.type === "file" && file.sha256 === s.source_hash);
    })
    .map((s) => ({ name: s.name, source: s.source }));
  const remove = [...onDisk.entries()].filter(([name, file]) => !wanted.has(name) && file.type === "file").map(([name]) => name);
  return { write, remove };
}

/**
 * Writes one script the way SCRIPT-024 says: a sibling temp file, delete the old file,
 * move the temp file onto the path, so no reader ever sees a half-written source.
 */
export async function writeScriptFile(files: ScriptFiles, name: string, source: string): Promise<void> {
  const temp = `${SCRIPTS_DIR}/.${name}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  await files.put(temp, source);
  try {
    await files.remove(scriptPath(name));
    await files.move(temp, scriptPath(name));
  } catch (error) {
    await files.remove(temp).catch(() => {});
    throw error;
  }
}

/**
 * Makes `<name>.py` hold exactly this source before it runs (SCRIPT-027): one listing when
 * it already does, the SCRIPT-024 write when it does not. True when it was written.
 */
export async function ensureScriptFile(files: ScriptFiles, script: Pick<ScriptSnapshotEntry, "name" | "source" | "source_hash">): Promise<boolean> {
  const present = (await files.list(SCRIPTS_DIR)).find((e) => e.name === `${script.name}.py`);
  if (present?.type === "file" && present.sha256 === script.source_hash) return false;
  await writeScriptFile(files, script.name, script.source);
  return true;
}

/** Runs the three steps against the box; returns what it changed. */
export async function materialiseScripts(
  files: ScriptFiles,
  snapshot: ReadonlyArray<Pick<ScriptSnapshotEntry, "name" | "source" | "source_hash">>,
  live: ReadonlyArray<Pick<ScriptSnapshotEntry, "name" | "source" | "source_hash">>,
): Promise<MaterialisePlan> {
  const plan = materialisePlan(await files.list(SCRIPTS_DIR), snapshot, live);
  // Each file's three steps stay in order; different files go side by side, a few at a time.
  await inBatches(plan.write, (script) => writeScriptFile(files, script.name, script.source));
  await inBatches(plan.remove, (name) => files.remove(scriptPath(name)));
  return plan;
}

/** Calls on the box at once, at most: enough to hide its round trips, few enough for a small box. */
const BATCH = 4;

async function inBatches<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) await Promise.all(items.slice(i, i + BATCH).map(work));
}
