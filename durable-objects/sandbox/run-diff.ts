/**
 * The diff of one repository a run changed (REPO-022..025, SBX-039): git runs in the box,
 * never here (REPO-010). The box comes up as the CLI tab brings it up, guilds-code prints
 * start..end, and the text is redacted with the agent's secret values before it leaves.
 */
import { and, eq } from "drizzle-orm";
import type { Env } from "../../bindings/env";
import { type Outcome, type Refused, refuse } from "../../bindings/outcome";
import { runs } from "../../core/db/schema";
import { platformRedactor, type SecretValue } from "../../core/output/redaction";
import { diffCommand, notRecordedMessage, type RepoDiff, readDiffAnswer, recordedRepos, tokenSecrets } from "../../core/repos/changes";
import { GIT_TOKENS_PATH } from "../../core/repos/types";
import { boxRefusalStatus, SandboxError } from "../../core/sandbox/errors";
import type { DatabasePort } from "../common/idle-connection";
import { currentEnsureRequest } from "./inputs";
import type { SandboxManager } from "./manager";

/** How long git diff may take in the box. */
const DIFF_TIMEOUT_MS = 60_000;
/**
 * The guest's output budget for the JSON answer: the asked bytes escaped in JSON (at most
 * six characters per byte for control characters, about one for ordinary text) and stderr.
 */
const DIFF_OUTPUT_BYTES = 4 << 20;
/** The tokens file as the platform writes it is well under this; the box may have replaced it. */
const TOKENS_FILE_MAX_BYTES = 64 << 10;

/** What the diff needs of the object it serves (the agent object's context is one). */
interface Host {
  env: Env;
  box: SandboxManager;
  /** The values the run's generations used, kept past a rotation or deletion, and the valid tokens. */
  redaction: { forRun(runId: string, now: number): Promise<SecretValue[]> };
  now(): number;
  database: DatabasePort;
}

/** A refusal of the box as the views answer it: 503 no box, 404 nothing to show, else 409. */
const boxRefused = (code: string, message: string): Refused => refuse(boxRefusalStatus(code), code, message);

/**
 * `runDiff(runId, repository)`: the start..end diff of a repository the run recorded in
 * metadata.repos, at most 256 KiB on a line boundary, redacted; or why not: 404
 * run.not_found (not this agent's run) or repository.not_recorded, 503
 * sandbox.unavailable, 409 for the box's other refusals and repository.checkpoint_missing
 * (the refs are gone), repository.missing (the work tree is gone) or repository.diff_failed.
 */
export async function runDiff(host: Host, agentId: string, runId: string, repository: string): Promise<Outcome<RepoDiff>> {
  const read = await host.database.use(async (db) => {
    const [run] = await db
      .select({ metadata: runs.metadata })
      .from(runs)
      .where(and(eq(runs.id, runId), eq(runs.agentId, agentId)))
      .limit(1);
    if (!run) return { ok: false as const, refused: refuse(404, "run.not_found", "No such run of this agent") };
    if (!recordedRepos(run.metadata).some((r) => r.name === repository)) {
      return { ok: false as const, refused: refuse(404, "repository.not_recorded", notRecordedMessage(repository)) };
    }
    return { ok: true as const, ensure: await currentEnsureRequest(db, host.env, agentId) };
  });
  if (!read.ok) return read.refused;
  if (!read.ensure.ok) return boxRefused(read.ensure.code, read.ensure.message);
  const { request } = read.ensure;
  // The values the agent's box holds in its environment, the platform's own keys, and the values
  // of the run's time: a secret rotated or deleted since is still in the box's history.
  const kept = await host.redaction.forRun(runId, host.now());
  const agentRedactor = platformRedactor(host.env).withSecrets([...request.secrets, ...kept]);
  const box = await host.box.forCommand(request);
  if (!box.ok) return boxRefused(box.code, agentRedactor.redact(box.message));
  // And the GitHub tokens the last generation wrote into the box, when there are any.
  const tokens = await box.guest.getFile(GIT_TOKENS_PATH, undefined, TOKENS_FILE_MAX_BYTES).then(
    (bytes) => tokenSecrets(new TextDecoder().decode(bytes)),
    () => [],
  );
  const redactor = agentRedactor.withSecrets(tokens);
  let result: Awaited<ReturnType<typeof box.guest.exec>>;
  try {
    result = await box.guest.exec({ command: diffCommand(runId, repository), timeoutMs: DIFF_TIMEOUT_MS, maxOutputBytes: DIFF_OUTPUT_BYTES });
  } catch (error) {
    const failure = error instanceof SandboxError ? error : new SandboxError("sandbox.unavailable", `The box did not answer: ${(error as Error).message}`);
    return boxRefused(failure.code, redactor.redact(failure.message.slice(0, 500)));
  }
  if (result.timedOut) return refuse(409, "repository.diff_failed", `git diff of ${repository} took longer than ${DIFF_TIMEOUT_MS / 1000} s in the box`);
  const answer = readDiffAnswer(result.output, result.exitCode, repository, redactor);
  if (!answer.ok) return refuse(409, answer.code, answer.message);
  return answer;
}
