/**
 * What the forge remembers in memory: repositories' visibility, App installations and the
 * installation tokens it minted. A token is good for git when the forge minted it, it has
 * not expired or been revoked, its installation is not revoked, and the repository is one
 * the token was limited to (and still reachable by the installation).
 */
import { randomBytes } from "node:crypto";

export interface Repository {
  full_name: string;
  private: boolean;
  default_branch: string;
}

export interface Installation {
  id: number;
  account: string;
  /** Full names (`owner/repo`) the installation reaches. */
  repositories: Set<string>;
  revoked: boolean;
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

export class ForgeState {
  readonly repositories = new Map<string, Repository>();
  readonly installations = new Map<number, Installation>();
  readonly tokens = new Map<string, MintedToken>();
  tokenTtlS = DEFAULT_TOKEN_TTL_S;
  private nextInstallationId = 1001;

  addInstallation(account: string, repositories: string[]): Installation {
    const installation: Installation = { id: this.nextInstallationId++, account, repositories: new Set(repositories), revoked: false };
    this.installations.set(installation.id, installation);
    return installation;
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

  /** What `token` may do to `fullName`. */
  access(token: string, fullName: string, now = Date.now()): Access {
    const minted = this.liveToken(token, now);
    if (!minted?.repositories.includes(fullName)) return "none";
    const installation = this.installations.get(minted.installation_id);
    if (!installation?.repositories.has(fullName)) return "none";
    return minted.permissions.contents ?? "none";
  }
}
