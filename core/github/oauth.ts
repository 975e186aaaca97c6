import { FORGE_ANSWER_CAP } from "../http/answer-caps";
import { AnswerTooLarge, readJsonWithin } from "../http/read-within";
import { GitHubError } from "./client";

/**
 * The platform's GitHub App as a user sees it during an installation claim (OP-REPO-6): its
 * install page, the OAuth code GitHub's redirect carries exchanged for a user token, and the
 * installations that user may see. The user token proves who approved; it is used for that
 * one listing and never stored, logged or put in an error.
 *
 * @example
 *   const oauth = new GitHubOAuth({ webUrl: "https://github.com", apiUrl: "https://api.github.com", slug, clientId, clientSecret });
 *   oauth.installUrl(state) // https://github.com/apps/<slug>/installations/new?state=…
 *   const token = await oauth.exchangeCode(code);
 *   await oauth.userInstallation(token, 678) // { id: 678, account_login: "acme" } or null
 */

export interface GitHubOAuthOptions {
  /** GitHub's web base, https://github.com: the install page and the code exchange. */
  webUrl: string;
  /** The REST base, https://api.github.com. */
  apiUrl: string;
  /** The App's public name in its page's URL. */
  slug: string;
  clientId: string;
  clientSecret: string;
  fetch?: typeof fetch;
}

/** GitHub refused the code, or the user token it gave: a wrong, used or expired code. */
export class GitHubCodeError extends Error {
  override readonly name = "GitHubCodeError";
  readonly kind = "code_refused";
}

const REQUEST_TIMEOUT_MS = 15_000;
/** GitHub's largest page; a user seeing more than PAGES × 100 installations is not searched further. */
const PER_PAGE = 100;
const PAGES = 10;

export class GitHubOAuth {
  readonly #options: GitHubOAuthOptions;
  readonly #fetch: typeof fetch;

  constructor(options: GitHubOAuthOptions) {
    this.#options = { ...options, webUrl: options.webUrl.replace(/\/+$/, ""), apiUrl: options.apiUrl.replace(/\/+$/, "") };
    // Bound: the Workers runtime refuses a fetch called on another object.
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** Where a user installs the App; GitHub passes `state` back to the setup URL untouched. */
  installUrl(state: string): string {
    return `${this.#options.webUrl}/apps/${encodeURIComponent(this.#options.slug)}/installations/new?state=${encodeURIComponent(state)}`;
  }

  /** The user token of a code from the install redirect; GitHubCodeError for a bad, used or expired code. */
  async exchangeCode(code: string): Promise<string> {
    const { clientId, clientSecret } = this.#options;
    const response = await this.#send(`${this.#options.webUrl}/login/oauth/access_token`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret, code }).toString(),
    });
    const body = (await json(response, "exchanging the code")) as { access_token?: unknown; error?: unknown };
    if (typeof body.access_token === "string" && body.access_token) return body.access_token;
    // GitHub answers 200 with an error name; its description is not passed on.
    if (body.error === "bad_verification_code") throw new GitHubCodeError("GitHub refused the code: it is wrong, used or expired");
    if (body.error === "incorrect_client_credentials") {
      throw new GitHubError("unavailable", "GitHub did not accept the App's client id or secret (GITHUB_APP_CLIENT_ID, GITHUB_APP_CLIENT_SECRET)");
    }
    throw new GitHubError(
      "unavailable",
      `GitHub's code exchange answered no token (${typeof body.error === "string" ? body.error.slice(0, 60) : "no error named"})`,
    );
  }

  /** The installation `id` when GitHub lists it for the token's user, with its account; null when it does not. */
  async userInstallation(userToken: string, id: number): Promise<{ id: number; account_login: string } | null> {
    for (let page = 1; page <= PAGES; page++) {
      const response = await this.#send(`${this.#options.apiUrl}/user/installations?per_page=${PER_PAGE}&page=${page}`, {
        headers: {
          accept: "application/vnd.github+json",
          authorization: `Bearer ${userToken}`,
          "user-agent": "guilds-platform",
          "x-github-api-version": "2022-11-28",
        },
      });
      if (response.status === 401) {
        await response.body?.cancel();
        throw new GitHubCodeError("GitHub did not accept the user token the code gave");
      }
      const body = (await json(response, "listing the user's installations")) as { installations?: Array<{ id?: unknown; account?: { login?: unknown } }> };
      const installations = Array.isArray(body.installations) ? body.installations : [];
      const found = installations.find((i) => i.id === id);
      if (found) {
        const login = found.account?.login;
        if (typeof login !== "string") throw new GitHubError("unavailable", `GitHub's answer for installation ${id} names no account`);
        return { id, account_login: login };
      }
      if (installations.length < PER_PAGE) return null;
    }
    return null;
  }

  async #send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await this.#fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (error) {
      throw new GitHubError("unavailable", `GitHub did not answer ${new URL(url).pathname}: ${(error as Error).name}`);
    }
  }
}

/** A 200's JSON; anything else is `unavailable` with the status only (a body may carry a token). */
async function json(response: Response, what: string): Promise<unknown> {
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new GitHubError("unavailable", `GitHub answered HTTP ${response.status} ${what}`);
  }
  try {
    return await readJsonWithin(response, FORGE_ANSWER_CAP);
  } catch (error) {
    if (error instanceof AnswerTooLarge) throw new GitHubError("unavailable", `${error.message} (${what})`);
    throw new GitHubError("unavailable", `GitHub's answer ${what} is not JSON`);
  }
}
