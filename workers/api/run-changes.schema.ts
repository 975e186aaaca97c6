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

/** `GET /api/runs/:id/changes` (REPO-021, OP-REPO-3). */
export const RunChanges = z.object({ data: z.array(RepoChange) }).meta({ id: "RunChanges" });

/** `GET /api/runs/:id/changes/:repository/diff` (REPO-022, OP-REPO-2). */
export const RepoDiff = z
  .object({
    repository: z.string(),
    diff: z.string().describe("git diff start..end, redacted, at most 256 KiB, cut on a line boundary"),
    truncated: z.boolean().describe("The diff was longer than 256 KiB and is cut"),
  })
  .meta({ id: "RepoDiff" });
