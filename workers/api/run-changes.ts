import { Hono } from "hono";
import * as z from "zod";
import { agentObject } from "../../bindings/objects";
import { readFileChanges } from "../../core/db/file-changes";
import { notRecordedMessage, recordedRepos } from "../../core/repos/changes";
import type { AppEnv } from "../http/context";
import { failure, ok, operation, pathId } from "../http/contract";
import { ApiError, settle } from "../http/errors";
import { RepoDiff, RunChanges } from "./run-changes.schema";
import { findRun } from "./run-queries";

/**
 * What a coding run changed (REPO-021..025): the diffstat per repository from
 * metadata.repos, and the start..end diff of one, produced in the agent's box.
 */

const byRepository = pathId("run", {
  repository: { schema: z.string().min(1).max(255).describe("The repository's name as the run recorded it (URL-encoded)"), resource: "repository" },
});

export const runChangeRoutes = new Hono<AppEnv>()
  .get(
    "/:id/changes",
    operation({
      operationId: "listRunChanges",
      summary: "What the run changed: the diffstat and the files per repository, start..end (REPO-021, RUN-019)",
      description:
        "From the run's latest end checkpoint (metadata.repos, and file_changes for the files); no box is started. A run that recorded none answers an empty list.",
      tag: "Runs",
      responses: { 200: ok("The diffstat per repository", RunChanges) },
      notFound: "run",
    }),
    pathId("run"),
    async (c) => {
      const db = c.get("db");
      const { run } = await findRun(db, c.get("organisationId"), c.req.valid("param").id);
      const repos = recordedRepos(run.metadata);
      // From file_changes (RUN-019): no box is woken for the list.
      const files = repos.length ? await readFileChanges(db, run.id) : new Map();
      return c.json({ data: repos.map((repo) => ({ ...repo, files: files.get(repo.name) ?? [] })) });
    },
  )
  .get(
    "/:id/changes/:repository/diff",
    operation({
      operationId: "getRunRepositoryDiff",
      summary: "The run's diff of one repository, start..end, at most 256 KiB (REPO-022)",
      description:
        "git diff runs in the agent's box, which comes up as for the CLI tab and starts its 5-minute idle timer (SBX-039). " +
        "The text is redacted with the agent's secret values; past 256 KiB it is cut on a line boundary and truncated is true.",
      tag: "Runs",
      responses: { 200: ok("The diff", RepoDiff) },
      objects: true,
      conflict:
        "repository.checkpoint_missing: the box has no checkpoint refs of this run; repository.missing: the box has no work tree of the repository any more; repository.diff_failed: git diff failed in the box (the message says how); agent.archived; or the box cannot run it now (its sandbox code)",
      errors: {
        404: failure("No such run in the caller's organisation (run.not_found), or the run recorded no repository of that name (repository.not_recorded)"),
        503: failure(
          "The agent's box cannot be started: no container engine, containers disabled, or a failed start (sandbox.unavailable; the message says which); or the database is unreachable (database.unavailable)",
        ),
      },
    }),
    byRepository,
    async (c) => {
      const { id, repository } = c.req.valid("param");
      const { run } = await findRun(c.get("db"), c.get("organisationId"), id);
      // Refused here already: an unrecorded name never wakes the box.
      if (!recordedRepos(run.metadata).some((r) => r.name === repository)) {
        throw new ApiError(404, "repository.not_recorded", notRecordedMessage(repository));
      }
      const diff = settle(await agentObject(c.env, run.agentId).runDiff(run.id, repository));
      return c.json({ repository: diff.repository, diff: diff.diff, truncated: diff.truncated }, 200, { "Cache-Control": "no-store" });
    },
  );
