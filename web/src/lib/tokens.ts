import type { ApiToken } from "./api-types";

/** Whether a token still opens the API. */
export function tokenState(token: ApiToken, now: Date): "active" | "expired" | "revoked" {
  if (token.revoked_at) return "revoked";
  if (token.expires_at && new Date(token.expires_at).getTime() <= now.getTime()) return "expired";
  return "active";
}

/** The expiry choices of the create form: a lifetime in days, a date, or none. */
export type ExpiryChoice = { kind: "never" } | { kind: "days"; days: number } | { kind: "date"; date: string };

/**
 * The create body's expiry fields for a choice; a date means the end of that day, local time.
 *
 * @example expiryFields({ kind: "days", days: 30 }) // { expires_in_days: 30 }
 */
export function expiryFields(choice: ExpiryChoice): { expires_in_days?: number; expires_at?: string } {
  if (choice.kind === "days") return { expires_in_days: choice.days };
  if (choice.kind === "date") {
    const end = new Date(`${choice.date}T23:59:59`);
    return { expires_at: Number.isNaN(end.getTime()) ? choice.date : end.toISOString() };
  }
  return {};
}

/** Whether this listed token is the one the console is signed in with. */
export const isCurrentToken = (token: ApiToken, secret: string | null): boolean => (secret?.startsWith(token.prefix) ?? false) && token.prefix.length > 4;
