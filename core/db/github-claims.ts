import { and, eq, lt } from "drizzle-orm";
import type { AnyDatabase } from "./client";
import { sqlState, UNIQUE_VIOLATION } from "./outage";
import { githubClaimStates, githubConnections } from "./schema";

/**
 * The database side of an installation claim (OP-REPO-6): spending a claim state once, and
 * holding an installation for one organisation at a time. Both rest on a constraint rather
 * than a read-then-write, so concurrent requests on any Worker instance get one winner.
 */

type ConnectionRow = typeof githubConnections.$inferSelect;

/**
 * Spends the state's nonce: true for the one request that inserts it, false for every other
 * (a replay, or a second request at the same moment). Spent nonces past their expiry are
 * cleared on the way: their signatures have expired too.
 *
 * @example await spendClaimState(db, { nonce, organisationId, expiresAt: new Date(expiry) }) // true, then false
 */
export async function spendClaimState(db: AnyDatabase, input: { nonce: string; organisationId: string; expiresAt: Date }, now = new Date()): Promise<boolean> {
  await db.delete(githubClaimStates).where(lt(githubClaimStates.expiresAt, now));
  const spent = await db.insert(githubClaimStates).values(input).onConflictDoNothing().returning({ nonce: githubClaimStates.nonce });
  return spent.length === 1;
}

export type Hold =
  | { held: ConnectionRow }
  /** The organisation already has it connected. */
  | { exists: ConnectionRow }
  /** Another organisation has it connected; which one is not said. */
  | { elsewhere: true };

/**
 * Connects the installation to the organisation: its own disconnected row comes back,
 * otherwise a new row. The partial unique index on connected installations refuses it when
 * another organisation holds the installation.
 */
export async function holdInstallation(db: AnyDatabase, organisationId: string, installationId: number, accountLogin: string): Promise<Hold> {
  const mine = and(eq(githubConnections.organisationId, organisationId), eq(githubConnections.installationId, installationId));
  const [existing] = await db.select().from(githubConnections).where(mine).limit(1);
  if (existing && existing.disconnectedAt === null) return { exists: existing };
  try {
    const [row] = existing
      ? await db.update(githubConnections).set({ accountLogin, disconnectedAt: null }).where(mine).returning()
      : await db
          .insert(githubConnections)
          .values({ organisationId, installationId, accountLogin })
          .onConflictDoUpdate({ target: [githubConnections.organisationId, githubConnections.installationId], set: { accountLogin, disconnectedAt: null } })
          .returning();
    return { held: row! };
  } catch (error) {
    if (sqlState(error) === UNIQUE_VIOLATION) return { elsewhere: true };
    throw error;
  }
}
