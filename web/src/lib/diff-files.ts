/**
 * A unified diff (git diff's output) split into one part per file, for the run's Changes
 * view (REPO-022, OP-UI-6): each file's path, how it changed, its counts, and its lines
 * classified so additions and removals can be coloured.
 */

export type DiffLineKind = "add" | "remove" | "context" | "hunk" | "note";

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

export type FileChange = "added" | "deleted" | "renamed" | "modified";

export interface DiffFile {
  /** The path after the change (before it, for a deleted file). */
  path: string;
  /** The path before a rename, else null. */
  from: string | null;
  change: FileChange;
  binary: boolean;
  additions: number;
  deletions: number;
  /** Hunk headers and their lines; the file's header lines are summarised above instead. */
  lines: DiffLine[];
}

/**
 * The files of a unified diff, in order. Text before the first `diff --git` header (none
 * in git's output) is left out.
 *
 * @example parseDiff("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")[0]
 * // { path: "x", from: null, change: "modified", binary: false, additions: 1, deletions: 1, lines: [hunk, remove, add] }
 */
export function parseDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let inHunk = false;
  const lines = text.split("\n");
  // A diff ends with a newline: the empty string after it is not a line.
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    if (line.startsWith("diff --git ")) {
      file = { path: headerPath(line.slice("diff --git ".length)), from: null, change: "modified", binary: false, additions: 0, deletions: 0, lines: [] };
      files.push(file);
      inHunk = false;
      continue;
    }
    if (!file) continue;
    if (line.startsWith("@@")) {
      inHunk = true;
      file.lines.push({ kind: "hunk", text: line });
    } else if (inHunk) {
      hunkLine(file, line);
    } else {
      headerLine(file, line);
    }
  }
  return files;
}

function hunkLine(file: DiffFile, line: string): void {
  const mark = line[0];
  if (mark === "+") {
    file.additions++;
    file.lines.push({ kind: "add", text: line });
  } else if (mark === "-") {
    file.deletions++;
    file.lines.push({ kind: "remove", text: line });
  } else if (mark === "\\") {
    file.lines.push({ kind: "note", text: line });
  } else {
    file.lines.push({ kind: "context", text: line });
  }
}

/** The lines between `diff --git` and the first hunk: modes, renames, the ---/+++ paths. */
function headerLine(file: DiffFile, line: string): void {
  if (line.startsWith("new file mode")) file.change = "added";
  else if (line.startsWith("deleted file mode")) file.change = "deleted";
  else if (line.startsWith("rename from ")) {
    file.change = "renamed";
    file.from = unquote(line.slice("rename from ".length));
  } else if (line.startsWith("rename to ")) file.path = unquote(line.slice("rename to ".length));
  else if (line.startsWith("Binary files ") || line === "GIT binary patch") file.binary = true;
  else if (line.startsWith("+++ ") && line !== "+++ /dev/null") file.path = stripPrefix(unquote(line.slice(4)), "b/");
  else if (line.startsWith("--- ") && line !== "--- /dev/null" && file.change === "deleted") file.path = stripPrefix(unquote(line.slice(4)), "a/");
}

/**
 * The path of `a/<path> b/<path>` (quoted when git quotes it). The same path on both sides
 * splits the header in half; a rename is settled by its own lines.
 */
function headerPath(rest: string): string {
  if (rest.startsWith('"')) {
    const bSide = rest.lastIndexOf(' "b/');
    return stripPrefix(unquote(bSide > 0 ? rest.slice(bSide + 1) : rest), "b/");
  }
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === " " && rest.slice(2, half) === rest.slice(half + 3)) return rest.slice(2, half);
  const bSide = rest.lastIndexOf(" b/");
  return bSide > 0 ? rest.slice(bSide + 3) : rest;
}

const stripPrefix = (path: string, prefix: string) => (path.startsWith(prefix) ? path.slice(prefix.length) : path);

/** git's C-style quoting of unusual paths (`"caf\303\251.txt"`), undone; other text unchanged. */
export function unquote(text: string): string {
  if (!(text.length >= 2 && text.startsWith('"') && text.endsWith('"'))) return text;
  const bytes: number[] = [];
  const inner = text.slice(1, -1);
  const named: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '"': 34, "\\": 92 };
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i]!;
    if (ch !== "\\") {
      bytes.push(...new TextEncoder().encode(ch));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(inner.slice(i + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 3;
    } else {
      const next = inner[i + 1] ?? "";
      bytes.push(named[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
