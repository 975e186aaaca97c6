import type { SandboxView } from "./view-ticket";

/**
 * Whether a view ticket still opens its view (SBX-026): the signature only proves who minted
 * it, so every request under it (and every open WebSocket bridge, periodically) asks again
 * whether the agent exists, the view is still on in its settings, and the API token whose
 * request minted it is still live. Pure: the Worker reads the two rows
 * (workers/views/view-access.ts).
 *
 * @example
 *   viewRefusal("cli", { organisationId, cli: false, browser: true }, token, Date.now())
 *   // { status: 403, code: "cli.disabled", message: "…" }
 */

/** The agent row as the check needs it; null when the agent does not exist. */
export interface ViewAgent {
  organisationId: string;
  cli: boolean;
  browser: boolean;
}

/** The minting token's row; null when no such token exists. */
export interface ViewToken {
  organisationId: string;
  revokedAt: Date | null;
  expiresAt: Date | null;
}

export interface ViewRefusal {
  status: 401 | 403 | 404;
  code: string;
  message: string;
}

/** Why the view may not be served now, or null when it may. */
export function viewRefusal(view: SandboxView, agent: ViewAgent | null, token: ViewToken | null, now: number): ViewRefusal | null {
  // A token of another organisation cannot have minted a ticket for this agent: as missing.
  if (!agent || (token && token.organisationId !== agent.organisationId))
    return { status: 404, code: "agent.not_found", message: "This view's agent no longer exists" };
  if (!token || token.revokedAt)
    return { status: 401, code: "auth.token_revoked", message: "The API token that opened this view was revoked: sign in again and open the tab again" };
  if (token.expiresAt && token.expiresAt.getTime() <= now)
    return { status: 401, code: "auth.token_expired", message: "The API token that opened this view has expired: sign in again and open the tab again" };
  if (view === "cli" && !agent.cli)
    return { status: 403, code: "cli.disabled", message: "This agent's CLI is off: turn on cli in its settings to open the CLI view" };
  if (view === "browser" && !agent.browser)
    return { status: 403, code: "browser.disabled", message: "This agent has no browser: turn on browser access in its settings to open the Browser view" };
  return null;
}
