import { describe, expect, it } from "vitest";
import { parseDiff, unquote } from "./diff-files";

// As `git diff <start> <end>` prints them.
const modified = [
  "diff --git a/src/app.ts b/src/app.ts",
  "index 1111111..2222222 100644",
  "--- a/src/app.ts",
  "+++ b/src/app.ts",
  "@@ -1,3 +1,3 @@",
  " const a = 1;",
  "-const b = 2;",
  "+const b = 3;",
  "+// --- not a header",
  " export { a, b };",
].join("\n");

const added = [
  "diff --git a/notes.md b/notes.md",
  "new file mode 100644",
  "index 0000000..3333333",
  "--- /dev/null",
  "+++ b/notes.md",
  "@@ -0,0 +1 @@",
  "+hello",
  "\\ No newline at end of file",
].join("\n");

const deleted = [
  "diff --git a/old.txt b/old.txt",
  "deleted file mode 100644",
  "index 4444444..0000000",
  "--- a/old.txt",
  "+++ /dev/null",
  "@@ -1,2 +0,0 @@",
  "-one",
  "-two",
].join("\n");

const renamed = ["diff --git a/a b.txt b/c d.txt", "similarity index 100%", "rename from a b.txt", "rename to c d.txt"].join("\n");

const binary = ["diff --git a/logo.png b/logo.png", "new file mode 100644", "index 0000000..5555555", "Binary files /dev/null and b/logo.png differ"].join(
  "\n",
);

describe("parseDiff (REPO-022, OP-UI-6: a diff view with per-file collapse)", () => {
  it("OP-UI-6: splits a diff into its files, in order, each with its counts", () => {
    const files = parseDiff(`${[modified, added, deleted, renamed, binary].join("\n")}\n`);
    expect(files.map((f) => [f.path, f.change, f.additions, f.deletions, f.binary])).toEqual([
      ["src/app.ts", "modified", 2, 1, false],
      ["notes.md", "added", 1, 0, false],
      ["old.txt", "deleted", 0, 2, false],
      ["c d.txt", "renamed", 0, 0, false],
      ["logo.png", "added", 0, 0, true],
    ]);
    expect(files[3]!.from).toBe("a b.txt");
  });

  it("OP-UI-6: hunk lines are classified for colouring; the ---/+++ header is not counted as a change", () => {
    const [file] = parseDiff(modified);
    expect(file!.lines.map((l) => l.kind)).toEqual(["hunk", "context", "remove", "add", "add", "context"]);
    expect(file!.lines[4]!.text).toBe("+// --- not a header");
    expect(parseDiff(added)[0]!.lines.map((l) => l.kind)).toEqual(["hunk", "add", "note"]);
  });

  it("REPO-022: a diff cut short keeps what it has of its last file", () => {
    const cut = modified.split("\n").slice(0, 7).join("\n");
    expect(parseDiff(cut)).toMatchObject([{ path: "src/app.ts", additions: 0, deletions: 1 }]);
  });

  it("OP-UI-6: an empty diff has no files", () => {
    expect(parseDiff("")).toEqual([]);
  });

  it("OP-UI-6: paths git quotes (non-ASCII) are shown as they are named", () => {
    expect(unquote('"caf\\303\\251 \\"x\\".txt"')).toBe('café "x".txt');
    const quoted = [
      'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"',
      "new file mode 100644",
      "--- /dev/null",
      '+++ "b/caf\\303\\251.txt"',
      "@@ -0,0 +1 @@",
      "+x",
    ].join("\n");
    expect(parseDiff(quoted)[0]).toMatchObject({ path: "café.txt", change: "added", additions: 1 });
  });
});
