import { asc, eq, sql } from "drizzle-orm";
import type { FileChangeRow, FileChangeView } from "../repos/file-changes";
import type { FileChangeKind } from "../repos/types";
import type { AnyDatabase } from "./client";
import { fileChanges } from "./schema";

/**
 * Replaces a run's file_changes with those of its latest end checkpoint (RUN-019), in one
 * statement: the old rows are deleted and returned, and a new row whose change is exactly
 * an old one's keeps that row's tool call; any other takes `toolCallId`.
 *
 * @example await replaceFileChanges(db, runId, fileChangeRows(repos)!, "call_9f…")
 */
export async function replaceFileChanges(db: AnyDatabase, runId: string, rows: readonly FileChangeRow[], toolCallId: string | null): Promise<void> {
  await db.execute(sql`
    with old as (delete from file_changes where run_id = ${runId}::uuid returning repository, path, operation, old_path, insertions, deletions, tool_call_id)
    insert into file_changes (run_id, tool_call_id, repository, path, operation, old_path, insertions, deletions)
    select ${runId}::uuid,
           coalesce((select o.tool_call_id from old o where o.repository = v.repository and o.path = v.path and o.operation = v.operation
                       and o.old_path is not distinct from v.old_path and o.insertions is not distinct from v.insertions
                       and o.deletions is not distinct from v.deletions limit 1), ${toolCallId}::text),
           v.repository, v.path, v.operation, v.old_path, v.insertions, v.deletions
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as v(repository text, path text, operation text, old_path text, insertions int, deletions int)`);
}

/**
 * A run's files by repository, each repository's in path order (the changes route, RUN-019).
 *
 * @example (await readFileChanges(db, runId)).get("app") // [{ path: "a.ts", change: "modified", … }]
 */
export async function readFileChanges(db: AnyDatabase, runId: string): Promise<Map<string, FileChangeView[]>> {
  const rows = await db
    .select()
    .from(fileChanges)
    .where(eq(fileChanges.runId, runId))
    // Byte order, as the box lists them: the same on every database whatever its collation.
    .orderBy(sql`${fileChanges.repository} collate "C"`, sql`${fileChanges.path} collate "C"`, asc(fileChanges.id));
  const byRepository = new Map<string, FileChangeView[]>();
  for (const row of rows) {
    const list = byRepository.get(row.repository) ?? [];
    list.push({
      path: row.path,
      change: row.operation as FileChangeKind,
      old_path: row.oldPath,
      insertions: row.insertions,
      deletions: row.deletions,
      tool_call_id: row.toolCallId,
    });
    byRepository.set(row.repository, list);
  }
  return byRepository;
}
