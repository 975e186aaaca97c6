import { FORGE_ANSWER_CAP } from "../http/answer-caps";
import { AnswerTooLarge, readJsonWithin } from "../http/read-within";
import { GitHubError } from "./client";
import { githubInit } from "./request";

/**
 * The platform's GitHub App as a user sees it during an installation claim (OP-REPO-6): its
 * install page, the OAuth code GitHub's redirect carries exchanged for a user token, the
 * installations that user may see, and whether they administer one's account. The user token
 * proves who approved; it is used for those reads only and never stored, logged or put in an
 * error.
 *
 * @example
 *   const oauth = new GitHubOAuth({ webUrl: "https://github.com", apiUrl: "https://api.github.com", slug, clientId, clientSecret });
 *   oauth.installUrl(state) // https://github.com/apps/<slug>/installations/new?state=…
 *   const token = await oauth.exchangeCode(code);
 *   await oauth.administeredInstallation(token, 678) // { id: 678, account_login: "acme" } or null
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

/** An installation's account as GitHub names it; id and type are null when GitHub's answer lacks them. */
export interface GitHubAccount {
  login: string;
  id: number | null;
  /** `User` or `Organization`. */
  type: string | null;
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

  /**
   * The installation `id` when the token's user may give it away: GitHub lists it for them and
   * they administer its account (`administers`); null otherwise, whether or not it exists.
   */
  async administeredInstallation(userToken: string, id: number): Promise<{ id: number; account_login: string } | null> {
    const installation = await this.userInstallation(userToken, id);
    if (!installation || !(await this.administers(userToken, installation.account))) return null;
    return { id, account_login: installation.account.login };
  }

  /**
   * The installation `id` when GitHub lists it for the token's user, with its account; null when
   * it does not. Listed is not owned: GitHub lists an installation for anyone with access to
   * one of its repositories, a read-only outside collaborator too.
   */
  async userInstallation(userToken: string, id: number): Promise<{ id: number; account: GitHubAccount } | null> {
    for (let page = 1; page <= PAGES; page++) {
      const response = await this.#asUser(userToken, `/user/installations?per_page=${PER_PAGE}&page=${page}`);
      if (response.status === 401) {
        await response.body?.cancel();
        throw new GitHubCodeError("GitHub did not accept the user token the code gave");
      }
      const body = (await json(response, "listing the user's installations")) as {
        installations?: Array<{ id?: unknown; account?: { login?: unknown; id?: unknown; type?: unknown } }>;
      };
      const installations = Array.isArray(body.installations) ? body.installations : [];
      const found = installations.find((i) => i.id === id);
      if (found) {
        const { login, id: accountId, type } = found.account ?? {};
        if (typeof login !== "string") throw new GitHubError("unavailable", `GitHub's answer for installation ${id} names no account`);
        return { id, account: { login, id: typeof accountId === "number" ? accountId : null, type: typeof type === "string" ? type : null } };
      }
      if (installations.length < PER_PAGE) return null;
    }
    return null;
  }

  /**
   * Whether the token's user may give away what is installed on `account`: a user's account
   * only by that user (by id when GitHub names both, else by login), an organisation's only by
   * an active owner (`GET /user/memberships/orgs/{org}`: role admin, state active). Any other
   * answer, a failure or an unknown account type is no.
   */
  async administers(userToken: string, account: GitHubAccount): Promise<boolean> {
    try {
      if (account.type === "User") {
        const user = (await this.#readAsUser(userToken, "/user")) as { login?: unknown; id?: unknown } | null;
        if (account.id !== null && typeof user?.id === "number") return user.id === account.id;
        return typeof user?.login === "string" && user.login.toLowerCase() === account.login.toLowerCase();
      }
      if (account.type === "Organization") {
        const membership = (await this.#readAsUser(userToken, `/user/memberships/orgs/${encodeURIComponent(account.login)}`)) as {
          role?: unknown;
          state?: unknown;
          organization?: { id?: unknown };
        } | null;
        const organisationId = membership?.organization?.id;
        const same = account.id === null || typeof organisationId !== "number" || organisationId === account.id;
        return membership?.role === "admin" && membership.state === "active" && same;
      }
      return false;
    } catch {
      return false;
    }
  }

  /** A 200's JSON read with the user token, within the forge's cap; null for any other answer, a body that is not JSON or one past the cap. */
  async #readAsUser(userToken: string, path: string): Promise<unknown> {
    const response = await this.#asUser(userToken, path);
    if (response.status !== 200) {
      await response.body?.cancel();
      return null;
    }
    return readJsonWithin(response, FORGE_ANSWER_CAP).catch(() => null);
  }

  #asUser(userToken: string, path: string): Promise<Response> {
    return this.#send(`${this.#options.apiUrl}${path}`, githubInit("GET", userToken, undefined));
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
