import { FORGE_ANSWER_CAP } from "../http/answer-caps";
import { AnswerTooLarge, readJsonWithin } from "../http/read-within";
import { appJwt, importAppKey, type SigningKey } from "./app-jwt";
import { githubInit } from "./request";

/**
 * The platform's GitHub App as its REST API sees it (OP-REPO-6): an installation's account,
 * and installation tokens limited to named repositories with contents and pull requests write
 * (REPO-002). Talks to any base URL (github.com's https://api.github.com, or a local forge).
 * A token is returned to the caller only: never logged, never in an error.
 *
 * @example
 *   const app = new GitHubApp({ apiUrl: "https://api.github.com", appId: "12345", privateKeyPem });
 *   const { token, expires_at } = await app.mintToken(678, ["widgets"]);
 */

export type GitHubErrorKind = "installation_refused" | "repository_unreachable" | "unavailable";

/** Why GitHub did not give what was asked; `repository` names the unreachable one. */
export class GitHubError extends Error {
  override readonly name = "GitHubError";
  constructor(
    readonly kind: GitHubErrorKind,
    message: string,
    readonly repository?: string,
  ) {
    super(message);
  }
}

export interface GitHubAppOptions {
  /** The REST base, e.g. https://api.github.com (no trailing slash needed). */
  apiUrl: string;
  appId: string;
  /** PKCS#8 or PKCS#1 PEM. */
  privateKeyPem: string;
  fetch?: typeof fetch;
}

export interface InstallationToken {
  token: string;
  /** ISO-8601. */
  expires_at: string;
}

/** A minted token with the repositories GitHub's answer lists (`owner/repo`; undefined when it lists none). */
type MintedToken = InstallationToken & { fullNames: string[] | undefined };

/** What an installation token may do (REPO-002). */
export const TOKEN_PERMISSIONS = { contents: "write", pull_requests: "write" } as const;

/**
 * What the token acting on a webhook delivery may do: comment on issues and pull requests;
 * reading a sender's access to the repository needs only metadata, which every token has.
 */
export const ISSUE_TOKEN_PERMISSIONS = { issues: "write" } as const;

/** The permissions a token is minted with: GitHub's names, read or write. */
export type TokenPermissions = Readonly<Record<string, "read" | "write">>;

export class GitHubApp {
  readonly #apiUrl: string;
  readonly #appId: string;
  readonly #pem: string;
  readonly #fetch: typeof fetch;
  #key: Promise<SigningKey> | undefined;

  constructor(options: GitHubAppOptions) {
    this.#apiUrl = options.apiUrl.replace(/\/+$/, "");
    this.#appId = options.appId;
    this.#pem = options.privateKeyPem;
    // Bound: the Workers runtime refuses a fetch called on another object.
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** The installation's id and account, or `installation_refused` when GitHub does not know it for this App. */
  async installation(id: number): Promise<{ id: number; account_login: string }> {
    const response = await this.#request("GET", `/app/installations/${id}`);
    if (response.status === 404 || response.status === 403) {
      await response.body?.cancel();
      throw new GitHubError("installation_refused", `GitHub refused installation ${id} (HTTP ${response.status})`);
    }
    const body = await this.#expectJson(response, 200, `reading installation ${id}`);
    const login = (body as { account?: { login?: unknown } }).account?.login;
    if (typeof login !== "string") throw new GitHubError("unavailable", `GitHub's answer for installation ${id} names no account`);
    return { id, account_login: login };
  }

  /**
   * A token for the installation limited to `repositoryNames` (the repo part of owner/repo).
   * When GitHub answers that one of them is out of the installation's reach, each is asked
   * alone to name it: the per-repository probe needs nothing but this endpoint, where listing
   * the installation's repositories would need an unrestricted token.
   */
  async mintToken(installationId: number, repositoryNames: string[]): Promise<InstallationToken> {
    const { token, expires_at } = await this.#mint(installationId, repositoryNames);
    return { token, expires_at };
  }

  /**
   * A token for one repository (`owner/repo`) of the installation, with contents and pull
   * requests write: what a task's git and its pull request need. GitHub takes the name
   * within the installation's account, so its answer must list this very repository: a
   * token for a namesake of another owner is refused (and dropped unused). `permissions`
   * asks for others (ISSUE_TOKEN_PERMISSIONS for the platform's comments on issues).
   *
   * @example const { token } = await app.mintRepositoryToken(678, "acme/widgets");
   */
  async mintRepositoryToken(installationId: number, fullName: string, permissions: TokenPermissions = TOKEN_PERMISSIONS): Promise<InstallationToken> {
    const [owner, name, ...rest] = fullName.split("/");
    if (!owner || !name || rest.length) throw new TypeError(`A repository is named owner/repo, not ${JSON.stringify(fullName)}`);
    const minted = await this.#mint(installationId, [name], permissions);
    if (minted.fullNames && !minted.fullNames.some((granted) => granted.toLowerCase() === fullName.toLowerCase())) {
      throw unreachable(installationId, fullName);
    }
    return { token: minted.token, expires_at: minted.expires_at };
  }

  async #mint(installationId: number, repositoryNames: string[], permissions: TokenPermissions = TOKEN_PERMISSIONS): Promise<MintedToken> {
    // GitHub reads no list as "every repository of the installation": never ask for that.
    if (repositoryNames.length === 0) throw new TypeError("An installation token is minted for at least one repository");
    const response = await this.#accessToken(installationId, repositoryNames, permissions);
    if (response.status !== 422) return this.#token(installationId, response);
    await refusal(installationId, response, permissions);
    if (repositoryNames.length === 1) throw unreachable(installationId, repositoryNames[0]!);
    for (const name of repositoryNames) {
      const alone = await this.#accessToken(installationId, [name], permissions);
      if (alone.status === 422) throw unreachable(installationId, name);
      // The probe's token is not needed: it is dropped unread.
      await alone.body?.cancel();
    }
    // GitHub refused the set but accepts each alone: report the first rather than guess.
    throw unreachable(installationId, repositoryNames[0]!);
  }

  #accessToken(installationId: number, repositories: string[], permissions: TokenPermissions): Promise<Response> {
    return this.#request("POST", `/app/installations/${installationId}/access_tokens`, { repositories, permissions });
  }

  async #token(installationId: number, response: Response): Promise<MintedToken> {
    if (response.status === 404 || response.status === 403) {
      await response.body?.cancel();
      throw new GitHubError("installation_refused", `GitHub refused installation ${installationId} (HTTP ${response.status})`);
    }
    const body = (await this.#expectJson(response, 201, `minting a token for installation ${installationId}`)) as Partial<InstallationToken> & {
      repositories?: Array<{ full_name?: unknown }>;
    };
    if (typeof body.token !== "string" || typeof body.expires_at !== "string") {
      throw new GitHubError("unavailable", `GitHub's token answer for installation ${installationId} has no token or expiry`);
    }
    const fullNames = Array.isArray(body.repositories) ? body.repositories.map((r) => String(r?.full_name ?? "")) : undefined;
    return { token: body.token, expires_at: body.expires_at, fullNames };
  }

  async #request(method: string, path: string, body?: unknown): Promise<Response> {
    this.#key ??= importAppKey(this.#pem);
    const jwt = await appJwt(await this.#key, this.#appId);
    try {
      return await this.#fetch(`${this.#apiUrl}${path}`, githubInit(method, jwt, body));
    } catch (error) {
      throw new GitHubError("unavailable", `GitHub did not answer ${method} ${path}: ${(error as Error).name}`);
    }
  }

  /** The JSON body of an expected status; anything else is `unavailable` with the status only (a body may carry a token). */
  async #expectJson(response: Response, status: number, what: string): Promise<unknown> {
    if (response.status !== status) {
      await response.body?.cancel();
      const hint = response.status === 401 ? ": the App id or private key is not accepted" : "";
      throw new GitHubError("unavailable", `GitHub answered HTTP ${response.status} ${what}${hint}`);
    }
    try {
      return await readJsonWithin(response, FORGE_ANSWER_CAP);
    } catch (error) {
      if (error instanceof AnswerTooLarge) throw new GitHubError("unavailable", `${error.message} (${what})`);
      throw new GitHubError("unavailable", `GitHub's answer ${what} is not JSON`);
    }
  }
}

/**
 * A 422 that is not about the repositories: the installation does not grant the permissions
 * asked (its owner accepted fewer), which is GitHub refusing the installation. GitHub's 422
 * message carries no token, so it is read; any other 422 is left to the repository probe.
 */
async function refusal(installationId: number, response: Response, permissions: TokenPermissions): Promise<void> {
  const message = await readJsonWithin(response, FORGE_ANSWER_CAP)
    .then((body) => String((body as { message?: unknown }).message ?? ""))
    .catch(() => "");
  if (/permission/i.test(message)) {
    const asked = Object.entries(permissions)
      .map(([name, level]) => `${name.replaceAll("_", " ")} ${level}`)
      .join(", ");
    throw new GitHubError("installation_refused", `Installation ${installationId} does not grant ${asked}`);
  }
}

const unreachable = (installationId: number, name: string) =>
  new GitHubError("repository_unreachable", `Installation ${installationId} does not reach the repository ${name}`, name);
