/**
 * The per-file changes of an end checkpoint (RUN-019): git's `--name-status -z` and
 * `--numstat -z` of the same start..end diff, joined by path. Both list renames and copies
 * with the old path first, NUL-separated, so any byte of a path survives.
 */
import type { FileChange, FileChangeKind } from "../../core/repos/types";

const KINDS: Record<string, FileChangeKind> = { A: "added", M: "modified", D: "deleted", R: "renamed", C: "copied", T: "type_changed" };

/**
 * @example parseNameStatus("M\0a.txt\0R100\0old\0new\0") // [{ path: "a.txt", change: "modified", old_path: null }, { path: "new", change: "renamed", old_path: "old" }]
 */
export function parseNameStatus(text: string): Array<Pick<FileChange, "path" | "change" | "old_path">> {
  const fields = text.split("\0");
  const out: Array<Pick<FileChange, "path" | "change" | "old_path">> = [];
  for (let i = 0; i < fields.length; ) {
    const status = fields[i++];
    if (!status) continue;
    const letter = status[0]!;
    if (letter === "R" || letter === "C") {
      const old = fields[i++] ?? "";
      const path = fields[i++] ?? "";
      out.push({ path, change: KINDS[letter]!, old_path: old });
    } else {
      const path = fields[i++] ?? "";
      // U (unmerged) and X cannot come from two commits; kept as modified rather than lost.
      out.push({ path, change: KINDS[letter] ?? "modified", old_path: null });
    }
  }
  return out;
}

/**
 * Line counts by path; a binary file ("-\t-") counts null.
 *
 * @example parseNumstat("2\t0\ta.txt\0-\t-\tblob.bin\0") // Map { "a.txt" => { insertions: 2, deletions: 0 }, "blob.bin" => { insertions: null, deletions: null } }
 */
export function parseNumstat(text: string): Map<string, { insertions: number | null; deletions: number | null }> {
  const fields = text.split("\0");
  const counts = new Map<string, { insertions: number | null; deletions: number | null }>();
  for (let i = 0; i < fields.length; ) {
    const entry = fields[i++];
    if (!entry) continue;
    const [added, deleted, ...rest] = entry.split("\t");
    let path = rest.join("\t");
    // A rename or copy: "n\tm\t" then the old path and the new path as their own fields.
    if (path === "") {
      i++;
      path = fields[i++] ?? "";
    }
    const count = (v: string | undefined) => (v === undefined || v === "-" ? null : Number(v));
    counts.set(path, { insertions: count(added), deletions: count(deleted) });
  }
  return counts;
}

/** The files of one diff, by path, at most `max`. */
export function joinFileChanges(nameStatus: string, numstat: string, max: number): { files: FileChange[]; truncated: boolean } {
  const counts = parseNumstat(numstat);
  const all = parseNameStatus(nameStatus)
    .map((f) => ({ ...f, ...(counts.get(f.path) ?? { insertions: null, deletions: null }) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files: all.slice(0, max), truncated: all.length > max };
}
