/**
 * The forge plugin: what a task does to its pull request, on GitHub through an installation
 * token limited to the task's repository (contents and pull requests write, REPO-002).
 * - `openDraftPR` at the first push ahead of the base (TASK-018): REST `POST /pulls` with
 *   `draft: true`. Idempotent: when GitHub answers 422 and an open pull of that head into
 *   that base exists (a retry, a restarted object), that pull is the answer.
 * - `markReady` when the task completes (TASK-024): GraphQL `markPullRequestReadyForReview`
 *   (REST has no way to leave draft). Idempotent: a pull already ready is done.
 * - `comment`: a conversation comment (REST `POST /issues/:n/comments`), e.g. the summary.
 * - `pullBody` / `updateBody`: the pull request's description (REST `GET|PATCH /pulls/:n`),
 *   e.g. its spend line (issue 33).
 * - `deleteBranch` when a best-of-N task closes: the attempts that lost (REST
 *   `DELETE /git/refs/heads/<branch>`). Idempotent: a branch already gone is done.
 * The GraphQL endpoint is derived from the REST base (GITHUB_API_URL, github.com's by
 * default), see `graphqlUrl`. A rate limit, no answer or a 5xx is tried again as retry.ts
 * says (a comment, whose repeat could post twice, only after a rate limit); a repository
 * that has no draft pull requests gets a ready one. Errors carry the forge's HTTP status and
 * its reason, never the token.
 *
 * @example
 *   const forge = githubForge({ apiUrl: env.GITHUB_API_URL || "https://api.github.com", token });
 *   const pr = await forge.openDraftPR({ fullName: "acme/app", head: "factory/task/APP-7", base: "main", title, body });
 *   await forge.markReady({ fullName: "acme/app", number: pr.number, nodeId: pr.nodeId });
 */

import { FORGE_ANSWER_CAP } from "../http/answer-caps";
import { AnswerTooLarge, readTextWithin } from "../http/read-within";
import { githubInit, refPath, repositoryUrl } from "./request";
import { rateLimitWait, retryWait } from "./retry";

export interface PullRequestRef {
  number: number;
  /** The pull request's page (html_url). */
  url: string;
  /** GraphQL's global id (node_id), which markReady needs. */
  nodeId: string;
}

export interface ForgePlugin {
  openDraftPR(input: { fullName: string; head: string; base: string; title: string; body: string }): Promise<PullRequestRef>;
  /** `nodeId` may be empty: it is then read from the pull request. */
  markReady(input: { fullName: string; number: number; nodeId: string }): Promise<void>;
  comment(input: { fullName: string; number: number; body: string }): Promise<void>;
  /** The pull request's description ("" when it has none). */
  pullBody(input: { fullName: string; number: number }): Promise<string>;
  /** Replaces the pull request's description. */
  updateBody(input: { fullName: string; number: number; body: string }): Promise<void>;
  /** True when the branch was deleted, false when it did not exist. */
  deleteBranch(input: { fullName: string; branch: string }): Promise<boolean>;
}

export interface GitHubForgeOptions {
  /** Waits between attempts (tests pass a faster one). */
  sleep?: (ms: number) => Promise<void>;
  /** The REST base: https://api.github.com, `https://<host>/api/v3` (GitHub Enterprise), or the local forge's. */
  apiUrl: string;
  /** An installation token that reaches the repositories with pull requests write. */
  token: string;
  fetch?: typeof fetch;
}

/** Why the forge did not do what was asked; `status` is its HTTP status, null when it did not answer. */
export class ForgePluginError extends Error {
  override readonly name = "ForgePluginError";
  constructor(
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
}

/** GitHub refuses a pull request body or comment longer than this many characters. */
export const MAX_BODY_CHARS = 65_536;
const MARK_READY = "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft number } } }";

/**
 * GitHub's GraphQL endpoint for a REST base: `https://api.github.com` → `https://api.github.com/graphql`;
 * GitHub Enterprise Server's `https://<host>/api/v3` → `https://<host>/api/graphql`; any other base
 * (the local forge's `<url>/api`) → `<base>/graphql`.
 */
export function graphqlUrl(apiUrl: string): string {
  const base = apiUrl.replace(/\/+$/, "");
  return /\/api\/v3$/.test(base) ? base.replace(/\/v3$/, "/graphql") : `${base}/graphql`;
}

export function githubForge(options: GitHubForgeOptions): ForgePlugin {
  const apiUrl = options.apiUrl.replace(/\/+$/, "");
  const { token } = options;
  // Bound: the Workers runtime refuses a fetch called on another object.
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  /** Never the token in a message, even if a forge echoed it. */
  const scrub = (text: string) => (token ? text.replaceAll(token, "[token]") : text);

  /**
   * One call to GitHub, sent again after a rate limit or, when its repeat is harmless, after
   * no answer or a 5xx (retry.ts); the last answer (or failure) stands.
   */
  async function request(method: string, url: string, what: string, body?: unknown, idempotent = true): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await doFetch(url, githubInit(method, token, body));
      } catch (error) {
        const wait = retryWait({ status: null }, attempt, { idempotent, now: Date.now() });
        if (wait === null) throw new ForgePluginError(null, `GitHub did not answer ${what}: ${(error as Error).name}`);
        await sleep(wait);
        continue;
      }
      if (response.ok) return response;
      const wait = retryWait(response, attempt, { idempotent, now: Date.now() });
      if (wait === null) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  }

  /** The answer's text within the forge's cap; past it an error naming the cap, unreadable as "". */
  const answerText = (response: Response, what: string) =>
    readTextWithin(response, FORGE_ANSWER_CAP).catch((error: unknown) => {
      if (error instanceof AnswerTooLarge) throw new ForgePluginError(response.status, `${error.message} (${what})`);
      return "";
    });

  /** The JSON of an expected status, or an error naming the status and GitHub's reason. */
  async function answerJson<T>(response: Response, status: number, what: string): Promise<T> {
    const text = await answerText(response, what);
    if (response.status !== status)
      throw new ForgePluginError(response.status, scrub(`GitHub answered HTTP ${response.status} ${what}${reason(response, text)}`));
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ForgePluginError(response.status, `GitHub's answer ${what} is not JSON`);
    }
  }

  const repoPath = (fullName: string) => repositoryUrl(apiUrl, fullName);

  async function readPull(fullName: string, number: number): Promise<PullJson> {
    const what = `reading pull request #${number} of ${fullName}`;
    return answerJson<PullJson>(await request("GET", `${repoPath(fullName)}/pulls/${number}`, what), 200, what);
  }

  return {
    async openDraftPR({ fullName, head, base, title, body }) {
      const what = `opening a draft pull request from ${head} into ${base} of ${fullName}`;
      const response = await request("POST", `${repoPath(fullName)}/pulls`, what, { title, head, base, body: clip(body), draft: true });
      if (response.status === 422) {
        // Most likely "a pull request already exists" (a retry): GitHub's message is not a
        // contract, so the open pull of that head is looked for, whatever the reason.
        const text = await answerText(response, what);
        // A repository whose plan has no draft pull requests gets a ready one (TASK-018).
        if (/draft pull requests are not supported/i.test(text)) {
          const ready = await request("POST", `${repoPath(fullName)}/pulls`, what, { title, head, base, body: clip(body) });
          return ref(await answerJson<PullJson>(ready, 201, what), what);
        }
        const refusal = new ForgePluginError(422, scrub(`GitHub answered HTTP 422 ${what}${reason(response, text)}`));
        const owner = fullName.slice(0, fullName.indexOf("/"));
        const query = new URLSearchParams({ head: `${owner}:${head}`, base, state: "open", per_page: "1" });
        const listing = `looking for the open pull request from ${head} of ${fullName}`;
        const [open] = await answerJson<PullJson[]>(await request("GET", `${repoPath(fullName)}/pulls?${query}`, listing), 200, listing);
        if (!open) throw refusal;
        return ref(open, what);
      }
      return ref(await answerJson<PullJson>(response, 201, what), what);
    },

    async markReady({ fullName, number, nodeId }) {
      const id = nodeId || ref(await readPull(fullName, number), `reading pull request #${number} of ${fullName}`).nodeId;
      const what = `marking pull request #${number} of ${fullName} ready for review`;
      const answer = await answerJson<GraphQLAnswer>(await request("POST", graphqlUrl(apiUrl), what, { query: MARK_READY, variables: { id } }), 200, what);
      if (answer.data?.markPullRequestReadyForReview?.pullRequest?.isDraft === false) return;
      // An error may only mean the pull was ready already (or readied meanwhile): then it is done.
      const pull = await readPull(fullName, number);
      if (pull.draft === false) return;
      const errors = (answer.errors ?? []).map((e) => [e.type, e.message].filter(Boolean).join(": ")).join("; ");
      throw new ForgePluginError(200, scrub(`GitHub did not mark pull request #${number} of ${fullName} ready: ${errors || "it is still a draft"}`));
    },

    async comment({ fullName, number, body }) {
      const what = `commenting on pull request #${number} of ${fullName}`;
      // Not sent again after a 5xx: the first may have been posted.
      await answerJson<unknown>(await request("POST", `${repoPath(fullName)}/issues/${number}/comments`, what, { body: clip(body) }, false), 201, what);
    },

    async pullBody({ fullName, number }) {
      const pull = await readPull(fullName, number);
      return typeof pull.body === "string" ? pull.body : "";
    },

    async updateBody({ fullName, number, body }) {
      const what = `updating the description of pull request #${number} of ${fullName}`;
      // The same body sent twice is the same description: safe to repeat.
      await answerJson<unknown>(await request("PATCH", `${repoPath(fullName)}/pulls/${number}`, what, { body: clip(body) }), 200, what);
    },

    async deleteBranch({ fullName, branch }) {
      const what = `deleting the branch ${branch} of ${fullName}`;
      const response = await request("DELETE", `${repoPath(fullName)}/git/refs/heads/${refPath(branch)}`, what);
      if (response.status === 204) return true;
      const text = await answerText(response, what);
      // GitHub answers 422 "Reference does not exist" (some versions 404) for a branch already gone.
      if (response.status === 422 || response.status === 404) {
        if (response.status === 404 || /reference does not exist/i.test(text)) return false;
      }
      throw new ForgePluginError(response.status, scrub(`GitHub answered HTTP ${response.status} ${what}${reason(response, text)}`));
    },
  };
}

interface PullJson {
  number?: unknown;
  html_url?: unknown;
  node_id?: unknown;
  draft?: unknown;
  body?: unknown;
}

interface GraphQLAnswer {
  data?: { markPullRequestReadyForReview?: { pullRequest?: { isDraft?: unknown } | null } | null } | null;
  errors?: Array<{ type?: string; message?: string }>;
}

function ref(pull: PullJson, what: string): PullRequestRef {
  if (typeof pull.number !== "number" || typeof pull.html_url !== "string" || typeof pull.node_id !== "string") {
    throw new ForgePluginError(null, `GitHub's answer ${what} has no number, html_url or node_id`);
  }
  return { number: pull.number, url: pull.html_url, nodeId: pull.node_id };
}

/** GitHub's reason from its error body (`message` and each of `errors`), with a hint for the usual statuses. */
function reason(response: Response, text: string): string {
  const { status } = response;
  let detail = "";
  try {
    const body = JSON.parse(text) as { message?: unknown; errors?: Array<Record<string, unknown>> };
    const parts = (Array.isArray(body.errors) ? body.errors : []).map((e) =>
      typeof e.message === "string" ? e.message : [e.field, e.code].filter((x) => typeof x === "string").join(" "),
    );
    detail = [typeof body.message === "string" ? body.message : "", parts.filter(Boolean).join("; ")].filter(Boolean).join(": ");
  } catch {
    // Not GitHub's JSON: the status says enough.
  }
  const limited = rateLimitWait(response, Date.now());
  const hint =
    limited !== null
      ? ` (rate limited${limited === "unknown" ? "" : `: GitHub asks to wait ${Math.ceil(limited / 1000)} s`})`
      : status === 401
        ? " (the token is expired or revoked)"
        : status === 403
          ? " (the token lacks pull requests write on the repository)"
          : status === 404
            ? " (no such repository or pull request within the token's reach)"
            : "";
  return `${detail ? `: ${detail.slice(0, 500)}` : ""}${hint}`;
}

/** GitHub refuses longer bodies: the end is cut, and says so. */
function clip(body: string): string {
  const note = "\n\n… (cut: longer than GitHub accepts)";
  return body.length <= MAX_BODY_CHARS ? body : body.slice(0, MAX_BODY_CHARS - note.length) + note;
}
