/**
 * The per-file changes of a run (RUN-019) as file_changes keeps them: read from guilds-code's
 * end checkpoint, one row per repository and file, attributed to the run and a tool call.
 * Pure: the writes are core/db/file-changes.ts.
 *
 * Attribution: the box is checkpointed once per generation, after its last tool call, so the
 * checkpoint cannot tell which call of the generation changed a file. A file whose change
 * differs from the previous checkpoint's is attributed to the last tool call of the generation
 * that produced the checkpoint; a file whose change is as it was keeps its earlier call.
 */
import type { StoredRow } from "../projection/types";
import { FILE_CHANGES_MAX, type FileChange, type FileChangeKind, type RepoChange } from "./types";

/** One file_changes row before it is written (the run and the attribution are the statement's). */
export interface FileChangeRow {
  repository: string;
  path: string;
  operation: FileChangeKind;
  old_path: string | null;
  insertions: number | null;
  deletions: number | null;
}

const KINDS = new Set<string>(["added", "modified", "deleted", "renamed", "copied", "type_changed"]);
const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : null);

/**
 * The rows of one end checkpoint, in repository then path order; entries that are not
 * FileChange-shaped are left out. Null when no repository listed its files (a guilds-code
 * that predates them): then the rows are left as they were.
 *
 * @example fileChangeRows([{ name: "app", files: [{ path: "a.ts", change: "modified", old_path: null, insertions: 1, deletions: 0 }], … }])
 * // [{ repository: "app", path: "a.ts", operation: "modified", old_path: null, insertions: 1, deletions: 0 }]
 */
export function fileChangeRows(repos: readonly RepoChange[]): FileChangeRow[] | null {
  if (!repos.some((r) => Array.isArray(r.files))) return null;
  return repos.flatMap((repo) =>
    (Array.isArray(repo.files) ? repo.files : [])
      .filter((f: Partial<FileChange> | null) => typeof f?.path === "string" && f.path.length > 0 && KINDS.has(f.change as string))
      .slice(0, FILE_CHANGES_MAX)
      .map((f) => ({
        repository: repo.name,
        path: f.path,
        operation: f.change,
        old_path: typeof f.old_path === "string" ? f.old_path : null,
        insertions: count(f.insertions),
        deletions: count(f.deletions),
      })),
  );
}

/**
 * The tool call a generation's end checkpoint is attributed to: the provider's id of the
 * generation's last tool result (RUN-017), null when the generation called no tool.
 *
 * @example lastToolCallOf(session.rows, 3) // "call_9f…"
 */
export function lastToolCallOf(rows: readonly StoredRow[], generation: number): string | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]!;
    if (row.generation !== null && row.generation < generation) break;
    if (row.generation === generation && row.payload.role === "tool" && row.metadata.source !== "handoff") return row.payload.tool_call_id;
  }
  return null;
}

/** One file as the changes route answers it. */
export interface FileChangeView {
  path: string;
  change: FileChangeKind;
  old_path: string | null;
  insertions: number | null;
  deletions: number | null;
  tool_call_id: string | null;
}
