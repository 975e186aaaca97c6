import * as z from "zod";

/** What a run changed in one repository (REPO-018): the diffstat from its start to its end checkpoint. */
export const RepoChange = z
  .object({
    name: z.string().describe("The repository's folder under /home/agent/repos"),
    branch: z.string().nullable().describe("The branch checked out at the end checkpoint; null when detached"),
    head_sha: z.string().nullable(),
    start_sha: z.string(),
    end_sha: z.string(),
    files_changed: z.int().min(0),
    insertions: z.int().min(0),
    deletions: z.int().min(0),
  })
  .meta({ id: "RepoChange" });

/** One file a run changed, start..end, as file_changes keeps it (RUN-019). */
export const FileChange = z
  .object({
    path: z.string().describe("The file's path in the repository at the end checkpoint"),
    change: z.enum(["added", "modified", "deleted", "renamed", "copied", "type_changed"]),
    old_path: z.string().nullable().describe("The path before a rename, or the source of a copy; null otherwise"),
    insertions: z.int().min(0).nullable().describe("Lines added; null for a binary file"),
    deletions: z.int().min(0).nullable().describe("Lines removed; null for a binary file"),
    tool_call_id: z
      .string()
      .nullable()
      .describe(
        "The tool call the change is attributed to: the last tool call of the generation whose end checkpoint first saw this change; null when that generation called no tool",
      ),
  })
  .meta({ id: "FileChange" });

/** A repository's diffstat with its files (RUN-019). */
export const RepoChanges = RepoChange.extend({
  files: z.array(FileChange).describe("The files changed start..end, by path (at most 2000 per repository), from file_changes"),
}).meta({ id: "RepoChanges" });

/** `GET /api/runs/:id/changes` (REPO-021, OP-REPO-3, RUN-019). */
export const RunChanges = z.object({ data: z.array(RepoChanges) }).meta({ id: "RunChanges" });

/** `GET /api/runs/:id/changes/:repository/diff` (REPO-022, OP-REPO-2). */
export const RepoDiff = z
  .object({
    repository: z.string(),
    diff: z.string().describe("git diff start..end, redacted, at most 256 KiB, cut on a line boundary"),
    truncated: z.boolean().describe("The diff was longer than 256 KiB and is cut"),
  })
  .meta({ id: "RepoDiff" });
