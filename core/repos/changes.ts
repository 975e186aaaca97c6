/**
 * A run's changes (REPO-018..025): the diffstat it recorded in metadata.repos, and the diff
 * guilds-code prints in the box, read, cut and redacted before it leaves the platform.
 * Pure: no Workers APIs.
 */
import type { Redactor, SecretValue } from "../output/redaction";
import { guildsCodeCommand, lastJson } from "./guilds-code";
import { DIFF_MAX_BYTES, type GitTokenEntry, type RepoChange } from "./types";

/**
 * What the box is asked for beyond DIFF_MAX_BYTES: a secret that straddles the cap is then
 * still whole when the text is redacted, before the platform cuts at the cap itself.
 */
export const DIFF_REDACTION_MARGIN_BYTES = 64 * 1024;

/** The diff of one repository as the changes route answers it (REPO-022). */
export interface RepoDiff {
  repository: string;
  diff: string;
  truncated: boolean;
}

/** Why the box gave no diff: its refs or its work tree are gone (guilds-code exit 4), or the command failed. */
export type DiffFailure = { ok: false; code: "repository.checkpoint_missing" | "repository.missing" | "repository.diff_failed"; message: string };

const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const isText = (v: unknown) => typeof v === "string" && v.length > 0;
const isTextOrNull = (v: unknown) => v === null || typeof v === "string";

/**
 * The repositories a run recorded (metadata.repos), in order; entries that are not
 * RepoChange-shaped are left out, and a run without any records `[]` (OP-REPO-3).
 *
 * @example recordedRepos({ repos: [{ name: "app", ... }] }).map((r) => r.name) // ["app"]
 */
export function recordedRepos(metadata: unknown): RepoChange[] {
  const repos = (metadata as { repos?: unknown } | null)?.repos;
  if (!Array.isArray(repos)) return [];
  return repos.filter((r): r is RepoChange => {
    if (typeof r !== "object" || r === null) return false;
    const e = r as Record<string, unknown>;
    return (
      isText(e.name) &&
      isTextOrNull(e.branch) &&
      isTextOrNull(e.head_sha) &&
      isText(e.start_sha) &&
      isText(e.end_sha) &&
      isCount(e.files_changed) &&
      isCount(e.insertions) &&
      isCount(e.deletions)
    );
  });
}

/**
 * The installation tokens of the box's git-tokens.json as redaction entries (REPO-003): a
 * token an agent copied into a repository is hidden in the diff as in the generation's
 * output. Anything that is not the file's shape gives none.
 *
 * @example tokenSecrets('{"github.com/acme/app":{"token":"ghs_x1y2","expires_at":"…"}}')
 * // [{ name: "github:github.com/acme/app", value: "ghs_x1y2" }]
 */
export function tokenSecrets(text: string): SecretValue[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return [];
  return Object.entries(parsed as Record<string, unknown>).flatMap(([key, entry]) => {
    const token = (entry as Partial<GitTokenEntry> | null)?.token;
    return typeof token === "string" ? [{ name: `github:${key}`, value: token }] : [];
  });
}

/** REPO-023: the message of 404 repository.not_recorded. */
export const notRecordedMessage = (repository: string) => `This run recorded no changes of a repository named ${JSON.stringify(repository)}`;

/** Quotes one word for bash: the repository name is the agent's to choose. */

/**
 * The command that prints the diff of one repository in the box (REPO-024, Part F's
 * contract): JSON `{diff, truncated}`, or exit 4 with `{error, message}` when the run's refs
 * (checkpoint.missing) or the work tree (repository.missing) are not there.
 *
 * @example diffCommand("6f1c…", "app") // "/usr/local/bin/guilds-code diff --run '6f1c…' --repo 'app' --max-bytes 327680"
 */
export function diffCommand(runId: string, repository: string): string {
  const max = DIFF_MAX_BYTES + DIFF_REDACTION_MARGIN_BYTES;
  return guildsCodeCommand("diff", { run: runId, repo: repository, "max-bytes": max });
}

/**
 * guilds-code's answer, from the guest's output (stdout and stderr together): the last line
 * that is a JSON object decides. Everything returned, messages included, is redacted.
 */
export function readDiffAnswer(output: string, exitCode: number | null, repository: string, redactor: Redactor): ({ ok: true } & RepoDiff) | DiffFailure {
  const answer = lastJsonObject(output);
  if (exitCode === 0 && answer && typeof answer.diff === "string") {
    const redacted = redactor.redact(answer.diff);
    const cut = cutAtLine(redacted, DIFF_MAX_BYTES);
    return { ok: true, repository, diff: cut.text, truncated: cut.truncated || answer.truncated === true };
  }
  // guilds-code says `{error, message}`; anything else (no such command) speaks on its last line.
  const said = typeof answer?.message === "string" ? answer.message : typeof answer?.error === "string" ? answer.error : lastLine(output);
  const reason = redactor.redact(said.slice(0, 500));
  const because = reason ? `: ${reason}` : "";
  if (exitCode === 4 && answer?.error === "repository.missing") {
    return { ok: false, code: "repository.missing", message: `The box has no work tree of ${repository} any more${because}` };
  }
  if (exitCode === 4) {
    return {
      ok: false,
      code: "repository.checkpoint_missing",
      message: `The box has no checkpoint of ${repository} for this run (its refs are gone)${because}`,
    };
  }
  return { ok: false, code: "repository.diff_failed", message: `git diff of ${repository} failed in the box (exit ${exitCode ?? "none"})${because}` };
}

/**
 * The longest prefix of `text` ending at a line boundary whose UTF-8 form fits in `maxBytes`
 * (OP-REPO-2). When not even the first line fits, the cut falls on the last whole character
 * instead, so a diff of one very long line still shows something.
 *
 * @example cutAtLine("a\nbb\nccc\n", 5) // { text: "a\nbb\n", truncated: true }
 */
export function cutAtLine(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text, truncated: false };
  const newline = bytes.lastIndexOf(0x0a, maxBytes - 1);
  let end = newline >= 0 ? newline + 1 : maxBytes;
  // Never split a UTF-8 sequence: step back over continuation bytes (10xxxxxx).
  if (newline < 0) while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: new TextDecoder().decode(bytes.subarray(0, end)), truncated: true };
}

function lastJsonObject(output: string): Record<string, unknown> | null {
  const answer = lastJson(output);
  return answer && typeof answer === "object" && !Array.isArray(answer) ? (answer as Record<string, unknown>) : null;
}

function lastLine(output: string): string {
  return output.trim().split("\n").at(-1)?.trim() ?? "";
}
