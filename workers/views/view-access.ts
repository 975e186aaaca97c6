import { eq } from "drizzle-orm";
import type { Env } from "../../bindings/env";
import { BoundedMap } from "../../core/cache/bounded-map";
import { REQUEST_DEADLINE_MS } from "../../core/db/client";
import { openEdgeDatabase } from "../../core/db/http";
import { agents, apiTokens } from "../../core/db/schema";
import { type ViewRefusal, viewRefusal } from "../../core/sandbox/view-access";
import type { SandboxView } from "../../core/sandbox/view-ticket";

/**
 * The Worker's side of view access (core/sandbox/view-access.ts): reads the agent's and
 * the minting token's rows and keeps the verdict for VIEW_ACCESS_TTL_MS, so a page's many
 * asset requests are one read, while a setting turned off, a revoked token or a deleted
 * agent reaches every request, and every open bridge (VIEW_RECHECK_MS), within
 * VIEW_ACCESS_TTL_MS + VIEW_RECHECK_MS: 20 s, under the 30 s a bearer token may outlive
 * its revocation in another isolate.
 *
 * @example
 *   const refused = await viewAccess(env, { agentId, view: "cli", tokenId });
 *   if (refused) throw new ApiError(refused.status, refused.code, refused.message);
 */

export const VIEW_ACCESS_TTL_MS = 15_000;
/** How often an open WebSocket bridge asks again. */
export const VIEW_RECHECK_MS = 5_000;

export interface ViewGrant {
  agentId: string;
  view: SandboxView;
  tokenId: string;
}

const verdicts = new BoundedMap<string, { refusal: ViewRefusal | null; at: number }>(1000);

const keyOf = (grant: ViewGrant) => `${grant.agentId}:${grant.view}:${grant.tokenId}`;

/** Why the ticket's view may not be served now, or null; a database failure throws. */
export async function viewAccess(env: Env, grant: ViewGrant, now = Date.now()): Promise<ViewRefusal | null> {
  const key = keyOf(grant);
  const held = verdicts.get(key);
  if (held && now - held.at < VIEW_ACCESS_TTL_MS) return held.refusal;
  const { db, close } = openEdgeDatabase(env, { deadlineMs: REQUEST_DEADLINE_MS });
  try {
    const [[agent = null], [token = null]] = await Promise.all([
      db.select({ organisationId: agents.organisationId, cli: agents.cli, browser: agents.browser }).from(agents).where(eq(agents.id, grant.agentId)).limit(1),
      db
        .select({ organisationId: apiTokens.organisationId, revokedAt: apiTokens.revokedAt, expiresAt: apiTokens.expiresAt })
        .from(apiTokens)
        .where(eq(apiTokens.id, grant.tokenId))
        .limit(1),
    ]);
    const refusal = viewRefusal(grant.view, agent, token, now);
    verdicts.set(key, { refusal, at: now });
    return refusal;
  } finally {
    await close();
  }
}

/** Forgets what this isolate knows of a token's views (it was revoked here), or of an agent's (changed or deleted here). */
export function forgetViewAccess(match: { tokenId: string } | { agentId: string }): void {
  for (const key of verdicts.keys()) {
    const [agentId, , tokenId] = key.split(":");
    if ("tokenId" in match ? tokenId === match.tokenId : agentId === match.agentId) verdicts.delete(key);
  }
}
