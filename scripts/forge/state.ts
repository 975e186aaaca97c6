/**
 * What the forge remembers: repositories' visibility, App installations (with the users who
 * approved them), organisations and collaborators (people-state.ts) and the installation
 * tokens it minted. A token is good for git when the forge
 * minted it, it has not expired or been revoked, its installation is not revoked, and the
 * repository is one the token was limited to (and still reachable by the installation).
 * OAuth codes and user tokens (installation claims) live in memory only: they last minutes.
 * `toJSON`/`fromJSON` carry the rest across a restart (persist.ts).
 */
import { randomBytes } from "node:crypto";
import { Checks, type SavedChecks } from "./check-state";
import { Issues, type SavedIssues } from "./issue-state";
import { People, type SavedPeople } from "./people-state";
import { Pulls, type SavedPulls } from "./pull-state";

export interface Repository {
  full_name: string;
  private: boolean;
  default_branch: string;
  /** False for a repository whose plan refuses draft pull requests (GitHub answers 422). */
  draft_pull_requests?: boolean;
}

/** Answers the API gives instead of serving, for tests: the next `times` requests under `path`. */
export interface ApiFault {
  /** A path prefix below `/api`, e.g. `/repos/acme/app/pulls`. */
  path: string;
  status: number;
  message: string;
  headers: Record<string, string>;
  times: number;
}

export interface Installation {
  id: number;
  account: string;
  /** Full names (`owner/repo`) the installation reaches. */
  repositories: Set<string>;
  revoked: boolean;
  /** Users (logins) who approved it; GitHub lists it for them, and for anyone with access to its account or a repository of it. */
  users: Set<string>;
}

/** An OAuth code or user token: whose it is and until when. */
interface UserGrant {
  user: string;
  expires_at: number;
}

export type Permissions = Record<string, "read" | "write">;

export interface MintedToken {
  token: string;
  installation_id: number;
  /** Full names. */
  repositories: string[];
  permissions: Permissions;
  expires_at: Date;
  revoked: boolean;
}

/** What a token may do to one repository. */
export type Access = "none" | "read" | "write";

/** Installation tokens live an hour on GitHub. */
export const DEFAULT_TOKEN_TTL_S = 3600;
/** GitHub's OAuth codes expire after ten minutes; user tokens after eight hours. */
const CODE_TTL_MS = 10 * 60 * 1000;
const USER_TOKEN_TTL_MS = 8 * 60 * 60 * 1000;

/** What survives a restart, as JSON. */
export interface SavedForgeState {
  repositories: Repository[];
  installations: Array<{ id: number; account: string; repositories: string[]; revoked: boolean; users: string[] }>;
  tokens: Array<Omit<MintedToken, "expires_at"> & { expires_at: string }>;
  token_ttl_s: number;
  next_installation_id: number;
  /** Absent from states saved before the forge had pull requests. */
  pulls?: SavedPulls;
  /** Absent from states saved before the forge had organisations and collaborators. */
  people?: SavedPeople;
  /** Absent from states saved before the forge had issues and checks. */
  issues?: SavedIssues;
  checks?: SavedChecks;
}

export class ForgeState {
  readonly repositories = new Map<string, Repository>();
  readonly installations = new Map<number, Installation>();
  readonly tokens = new Map<string, MintedToken>();
  pulls = new Pulls();
  people = new People();
  issues = new Issues();
  checks = new Checks();
  tokenTtlS = DEFAULT_TOKEN_TTL_S;
  private nextInstallationId = 1001;
  private readonly codes = new Map<string, UserGrant>();
  private readonly userTokens = new Map<string, UserGrant>();

  /** The repository's next issue or pull request number: one sequence for both, as on GitHub. */
  nextNumber(fullName: string): number {
    const numbers = [...this.pulls.of(fullName), ...this.issues.of(fullName)].map((item) => item.number);
    return Math.max(0, ...numbers) + 1;
  }

  /** The live installation that holds the repository (the oldest when several do), whose deliveries it gets. */
  installationOf(fullName: string): Installation | undefined {
    return [...this.installations.values()].find((i) => !i.revoked && i.repositories.has(fullName));
  }

  /** A new installation on `account`; the account itself (a user's own account) may see it, and `users`. */
  addInstallation(account: string, repositories: string[], users: string[] = []): Installation {
    const installation: Installation = {
      id: this.nextInstallationId++,
      account,
      repositories: new Set(repositories),
      revoked: false,
      users: new Set([account, ...users]),
    };
    this.installations.set(installation.id, installation);
    return installation;
  }

  /**
   * A user installing the App on `account` from the install page, as GitHub does it: the
   * account's live installation gains the repositories (`update`), or a new one is made
   * (`install`); the user may see it from then on.
   */
  install(account: string, repositories: string[], user: string): { installation: Installation; action: "install" | "update" } {
    const live = [...this.installations.values()].find((i) => i.account === account && !i.revoked);
    if (!live) return { installation: this.addInstallation(account, repositories, [user]), action: "install" };
    for (const name of repositories) live.repositories.add(name);
    live.users.add(user);
    return { installation: live, action: "update" };
  }

  /** A single-use OAuth code of `user`, as GitHub's redirect after the user approves carries. */
  issueCode(user: string, now = Date.now()): string {
    const code = randomBytes(10).toString("hex");
    this.codes.set(code, { user, expires_at: now + CODE_TTL_MS });
    return code;
  }

  /** The code's user token (`ghu_…`), once; undefined for an unknown, used or expired code. */
  exchangeCode(code: string, now = Date.now()): string | undefined {
    const grant = this.codes.get(code);
    this.codes.delete(code);
    if (!grant || grant.expires_at <= now) return undefined;
    const token = `ghu_${randomBytes(27).toString("base64url")}`;
    this.userTokens.set(token, { user: grant.user, expires_at: now + USER_TOKEN_TTL_MS });
    return token;
  }

  /** The user a live user token belongs to. */
  tokenUser(token: string, now = Date.now()): string | undefined {
    const grant = this.userTokens.get(token);
    return grant && grant.expires_at > now ? grant.user : undefined;
  }

  /**
   * The live installations `user` may see, oldest first, as GitHub lists them: those the user
   * approved, those on an organisation they are an active member of, and those reaching a
   * repository they collaborate on, a read-only outside collaborator too.
   */
  userInstallations(user: string): Installation[] {
    return [...this.installations.values()].filter(
      (i) =>
        !i.revoked &&
        (i.users.has(user) ||
          this.people.membership(i.account, user)?.state === "active" ||
          [...i.repositories].some((name) => this.people.collaborator(name, user) !== undefined)),
    );
  }

  /** A live installation, or undefined for an unknown or revoked one (GitHub answers 404 to both). */
  liveInstallation(id: number): Installation | undefined {
    const installation = this.installations.get(id);
    return installation && !installation.revoked ? installation : undefined;
  }

  /** Names the installation cannot reach: not in its list, or no such repository on the forge. */
  unreachable(installation: Installation, fullNames: string[]): string[] {
    return fullNames.filter((name) => !installation.repositories.has(name) || !this.repositories.has(name));
  }

  mint(installation: Installation, fullNames: string[], permissions: Permissions, now = Date.now()): MintedToken {
    const minted: MintedToken = {
      // GitHub's installation tokens start `ghs_`; the rest is random.
      token: `ghs_${randomBytes(27).toString("base64url")}`,
      installation_id: installation.id,
      repositories: [...fullNames],
      permissions: { ...permissions },
      expires_at: new Date(Math.floor(now / 1000) * 1000 + this.tokenTtlS * 1000),
      revoked: false,
    };
    this.tokens.set(minted.token, minted);
    return minted;
  }

  /** The token when it is still good (minted, unexpired, unrevoked, its installation live). */
  liveToken(token: string, now = Date.now()): MintedToken | undefined {
    const minted = this.tokens.get(token);
    if (!minted || minted.revoked || minted.expires_at.getTime() <= now) return undefined;
    return this.liveInstallation(minted.installation_id) ? minted : undefined;
  }

  /** Whether `token` is live and limited to `fullName`, which its installation still reaches. */
  reaches(token: string, fullName: string, now = Date.now()): boolean {
    const minted = this.liveToken(token, now);
    if (!minted?.repositories.includes(fullName)) return false;
    return this.installations.get(minted.installation_id)?.repositories.has(fullName) ?? false;
  }

  /** What `token` may do to `fullName` under one permission (git is `contents`). */
  access(token: string, fullName: string, permission = "contents", now = Date.now()): Access {
    if (!this.reaches(token, fullName, now)) return "none";
    return this.tokens.get(token)?.permissions[permission] ?? "none";
  }

  toJSON(): SavedForgeState {
    return {
      repositories: [...this.repositories.values()],
      installations: [...this.installations.values()].map((i) => ({ ...i, repositories: [...i.repositories], users: [...i.users] })),
      tokens: [...this.tokens.values()].map((t) => ({ ...t, expires_at: t.expires_at.toISOString() })),
      token_ttl_s: this.tokenTtlS,
      next_installation_id: this.nextInstallationId,
      pulls: this.pulls.toJSON(),
      people: this.people.toJSON(),
      issues: this.issues.toJSON(),
      checks: this.checks.toJSON(),
    };
  }

  static fromJSON(saved: SavedForgeState): ForgeState {
    const state = new ForgeState();
    for (const repository of saved.repositories) state.repositories.set(repository.full_name, repository);
    for (const i of saved.installations) state.installations.set(i.id, { ...i, repositories: new Set(i.repositories), users: new Set(i.users) });
    for (const t of saved.tokens) state.tokens.set(t.token, { ...t, expires_at: new Date(t.expires_at) });
    state.tokenTtlS = saved.token_ttl_s;
    state.nextInstallationId = saved.next_installation_id;
    state.pulls = Pulls.fromJSON(saved.pulls);
    state.people = People.fromJSON(saved.people);
    state.issues = Issues.fromJSON(saved.issues);
    state.checks = Checks.fromJSON(saved.checks);
    return state;
  }
}
