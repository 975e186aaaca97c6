/**
 * GitHub's Checks API as a task reads it: the check runs of a commit
 * (`GET /repos/{o}/{r}/commits/{ref}/check-runs`, every page up to a bound) and a branch's
 * head (`GET /repos/{o}/{r}/branches/{branch}`). Fetch only, like forge-plugin.ts: answers
 * read within the forge's cap, errors carrying GitHub's status, never the token.
 *
 * @example
 *   const checks = githubChecks({ apiUrl: env.GITHUB_API_URL || "https://api.github.com", token });
 *   const head = await checks.branchHead("acme/app", "factory/task/APP-7");
 *   const runs = head ? await checks.listCheckRuns("acme/app", head) : [];
 */
import { FORGE_ANSWER_CAP } from "../http/answer-caps";
import { AnswerTooLarge, readJsonWithin } from "../http/read-within";
import { githubInit, refPath, repositoryUrl } from "./request";

/** A check run as the task keeps it (GitHub's fields of the same names). */
export interface CheckRun {
  id: number;
  name: string;
  /** queued, in_progress, completed (GitHub Actions also says waiting, requested, pending). */
  status: string;
  /** success, failure, timed_out, cancelled, … once completed; null before. */
  conclusion: string | null;
  html_url: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
}

/** What the checks of a task's branch are read through (the forge; a test's own reader). */
export interface ChecksReader {
  /** Every check run of the commit (`ref`: a sha or a branch), newest first as GitHub lists them. */
  listCheckRuns(fullName: string, ref: string): Promise<CheckRun[]>;
  /** The branch's head commit, or null when the branch does not exist. */
  branchHead(fullName: string, branch: string): Promise<string | null>;
}

export interface GitHubChecksOptions {
  /** The REST base: https://api.github.com, `https://<host>/api/v3`, or the local forge's. */
  apiUrl: string;
  /** An installation token with checks read on the repository. */
  token: string;
  fetch?: typeof fetch;
}

/** Why GitHub gave no answer to rely on; `status` is its HTTP status, null when it did not answer. */
export class ChecksApiError extends Error {
  override readonly name = "ChecksApiError";
  constructor(
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
}

/** Check runs per page (GitHub's most). */
export const CHECK_RUNS_PER_PAGE = 100;
/** Pages read at most: 1,000 check runs on one commit is more than any repository has. */
export const CHECK_RUN_PAGES = 10;

export function githubChecks(options: GitHubChecksOptions): ChecksReader {
  const apiUrl = options.apiUrl.replace(/\/+$/, "");
  const { token } = options;
  // Bound: the Workers runtime refuses a fetch called on another object.
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));

  const repoPath = (fullName: string) => repositoryUrl(apiUrl, fullName);

  /** The JSON answer of a GET; null for a 404 when `missing` allows it. */
  async function getJson(url: string, what: string, missing: boolean): Promise<unknown> {
    let response: Response;
    try {
      response = await doFetch(url, githubInit("GET", token, undefined));
    } catch (error) {
      throw new ChecksApiError(null, `GitHub did not answer ${what}: ${(error as Error).name}`);
    }
    if (missing && response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (response.status !== 200) {
      // GitHub's error body is not read: the status says what went wrong, and no body can carry a token into the message.
      await response.body?.cancel();
      const hint =
        response.status === 403
          ? " (the token lacks checks read on the repository)"
          : response.status === 404
            ? " (no such repository within the token's reach)"
            : "";
      throw new ChecksApiError(response.status, `GitHub answered HTTP ${response.status} ${what}${hint}`);
    }
    try {
      return await readJsonWithin(response, FORGE_ANSWER_CAP);
    } catch (error) {
      if (error instanceof AnswerTooLarge) throw new ChecksApiError(200, `${error.message} (${what})`);
      throw new ChecksApiError(200, `GitHub's answer ${what} is not JSON`);
    }
  }

  return {
    async listCheckRuns(fullName, ref) {
      const what = `listing the check runs of ${ref.slice(0, 60)} in ${fullName}`;
      const runs: CheckRun[] = [];
      for (let page = 1; page <= CHECK_RUN_PAGES; page++) {
        const query = new URLSearchParams({ per_page: String(CHECK_RUNS_PER_PAGE), page: String(page) });
        const body = (await getJson(`${repoPath(fullName)}/commits/${encodeURIComponent(ref)}/check-runs?${query}`, what, false)) as {
          total_count?: unknown;
          check_runs?: unknown;
        } | null;
        const listed = Array.isArray(body?.check_runs) ? body.check_runs : null;
        if (!listed) throw new ChecksApiError(200, `GitHub's answer ${what} has no check_runs`);
        runs.push(...listed.map(checkRun));
        const total = typeof body?.total_count === "number" ? body.total_count : runs.length;
        if (listed.length < CHECK_RUNS_PER_PAGE || runs.length >= total) break;
      }
      return runs;
    },

    async branchHead(fullName, branch) {
      const what = `reading the branch ${branch.slice(0, 200)} of ${fullName}`;
      const body = (await getJson(`${repoPath(fullName)}/branches/${refPath(branch)}`, what, true)) as { commit?: { sha?: unknown } } | null;
      if (body === null) return null;
      const sha = body.commit?.sha;
      if (typeof sha !== "string") throw new ChecksApiError(200, `GitHub's answer ${what} has no commit sha`);
      return sha;
    },
  };
}

const text = (value: unknown) => (typeof value === "string" ? value : null);

/** GitHub's check run JSON as the task keeps it; a field of the wrong type reads as absent. */
function checkRun(raw: unknown): CheckRun {
  const run = (raw ?? {}) as Record<string, unknown>;
  const output = (run.output ?? {}) as Record<string, unknown>;
  return {
    id: typeof run.id === "number" ? run.id : 0,
    name: text(run.name) ?? "check",
    status: text(run.status) ?? "queued",
    conclusion: text(run.conclusion),
    html_url: text(run.html_url),
    output: { title: text(output.title), summary: text(output.summary), text: text(output.text) },
  };
}
