import { BoundedMap } from "../cache/bounded-map";

/** How long a verified token is trusted without asking the database again. */
export const VERIFIED_TOKEN_TTL_MS = 30_000;
/** Entries one isolate keeps at most; the oldest go first. */
const MAX_ENTRIES = 1_000;

/** What a successful token check established, as the auth middleware needs it. */
export interface VerifiedToken {
  id: string;
  organisationId: string;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

/**
 * Tokens verified recently in this isolate, keyed by the token's SHA-256 (never the
 * token), so an authenticated request skips the database's token check. A token revoked
 * elsewhere keeps working here for at most `ttlMs`; a revocation through this isolate
 * evicts it at once (`evict`). Expiry is checked on every hit from the cached
 * `expiresAt`, so an expired token is refused the moment it expires. Only tokens that
 * passed the check are kept: an unknown token always reaches the database.
 *
 * @example
 *   const hit = verifiedTokens.get(hash); // null: check the database, then verifiedTokens.put(hash, row)
 */
export class VerifiedTokens {
  private readonly entries = new BoundedMap<string, { token: VerifiedToken; verifiedAt: number }>(MAX_ENTRIES);

  constructor(
    readonly ttlMs = VERIFIED_TOKEN_TTL_MS,
    /** The clock; tests move it. */
    public now: () => number = Date.now,
  ) {}

  /** The token verified under `hash` within the bound, or null. */
  get(hash: string): VerifiedToken | null {
    const entry = this.entries.get(hash);
    if (!entry) return null;
    if (this.now() - entry.verifiedAt >= this.ttlMs) {
      this.entries.delete(hash);
      return null;
    }
    return entry.token;
  }

  put(hash: string, token: VerifiedToken): void {
    this.entries.set(hash, { token, verifiedAt: this.now() });
  }

  /** Records a last_used_at write without restarting the bound. */
  touch(hash: string, lastUsedAt: Date): void {
    const entry = this.entries.get(hash);
    if (entry) entry.token = { ...entry.token, lastUsedAt };
  }

  /** Forgets the token with this id (revoked through this isolate), or one hash. */
  evict(match: { id: string } | { hash: string }): void {
    if ("hash" in match) {
      this.entries.delete(match.hash);
      return;
    }
    for (const [hash, entry] of this.entries) if (entry.token.id === match.id) this.entries.delete(hash);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** The Worker isolate's cache. */
export const verifiedTokens = new VerifiedTokens();
