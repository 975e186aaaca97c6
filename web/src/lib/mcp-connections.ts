/**
 * The console's side of MCP connections: the body of a new connection, OAuth's way out to
 * the authorization server and back (`/mcp/callback`, whose code and state are posted to the
 * API with the operator's token), where a 4xx is shown, and a guard that keeps a late answer
 * from undoing a later click.
 *
 * @example
 *   readCallback("?code=abc&state=c.n.x.s") // { kind: "complete", body: { code: "abc", state: "c.n.x.s" } }
 */
import { ApiError } from "./api-client";

export type AuthChoice = "none" | "bearer" | "oauth";

export interface NewConnectionForm {
  url: string;
  slug: string;
  auth: AuthChoice;
  token: string;
  preset: string;
  /** OAuth only: a client the operator registered with a server that has no dynamic registration. */
  clientId?: string;
  clientSecret?: string;
}

export type AuthInput = { kind: "none" } | { kind: "bearer"; token: string } | { kind: "oauth"; client?: { id: string; secret?: string } };

/**
 * The create body: a preset names its URL (and auth, unless a bearer preset's token is
 * given); otherwise URL and auth as chosen, a bearer connection carrying its token.
 */
export function createBody(form: NewConnectionForm): { slug: string; url?: string; preset?: string; auth?: AuthInput } {
  const slug = form.slug.trim();
  const auth: AuthInput = form.auth === "bearer" ? { kind: "bearer", token: form.token } : form.auth === "oauth" ? oauthInput(form) : { kind: form.auth };
  const given = form.auth === "bearer" || (auth.kind === "oauth" && auth.client !== undefined);
  if (form.preset) return { preset: form.preset, slug, ...(given ? { auth } : {}) };
  return { url: form.url.trim(), slug, auth };
}

/** OAuth, with the operator's client when a client id is given (its secret only if typed). */
function oauthInput(form: NewConnectionForm): AuthInput {
  const id = form.clientId?.trim() ?? "";
  if (!id) return { kind: "oauth" };
  const secret = form.clientSecret ?? "";
  return { kind: "oauth", client: { id, ...(secret ? { secret } : {}) } };
}

/** The connections that reach an agent: organisation-wide ones, and those granted to it or to its guild. */
export function reachingAgent<C extends { org_wide: boolean; grants: Array<{ guild_id: string | null; agent_id: string | null }> }>(
  connections: readonly C[],
  agent: { id: string; guild_id: string },
): C[] {
  return connections.filter((c) => c.org_wide || c.grants.some((g) => g.agent_id === agent.id || g.guild_id === agent.guild_id));
}

export type Callback =
  | { kind: "complete"; body: { code: string; state: string; iss?: string } }
  /** The operator or the server declined: its error code, and its description as untrusted text. */
  | { kind: "denied"; error: string; description: string }
  | { kind: "incomplete"; missing: string[] };

/** What the authorization server's redirect to the console carried. */
export function readCallback(search: string): Callback {
  const query = new URLSearchParams(search);
  const error = query.get("error");
  if (error) return { kind: "denied", error: error.slice(0, 64), description: (query.get("error_description") ?? "").slice(0, 500) };
  const code = query.get("code") ?? "";
  const state = query.get("state") ?? "";
  // RFC 9207: the issuer the redirect names goes to the API, which checks it is the one the operator was sent to.
  const iss = query.get("iss") ?? "";
  const missing = [...(code ? [] : ["code"]), ...(state ? [] : ["state"])];
  return missing.length ? { kind: "incomplete", missing } : { kind: "complete", body: { code, state, ...(iss ? { iss } : {}) } };
}

/** Where an OAuth connection signs in and takes its tokens from (the API's authorization_server). */
export interface SignInPlace {
  issuer: string;
  authorization_origin: string;
  token_origin: string;
}

/**
 * What the operator reads beside "Authorise": the sign-in page's origin and, apart, the token
 * endpoint's or the issuer's when they differ from it, so a server pairing a known provider's
 * sign-in page with its own token endpoint is seen. Null when discovery has not run yet.
 *
 * @example signInText({ issuer: "https://a.example", authorization_origin: "https://a.example", token_origin: "https://t.example" })
 * // { signsInAt: "https://a.example", apart: ["tokens from https://t.example"] }
 */
export function signInText(place: SignInPlace | undefined | null): { signsInAt: string; apart: string[] } | null {
  if (!place) return null;
  const apart: string[] = [];
  if (place.token_origin !== place.authorization_origin) apart.push(`tokens from ${place.token_origin}`);
  let issuerOrigin = place.issuer;
  try {
    issuerOrigin = new URL(place.issuer).origin;
  } catch {
    // shown as given
  }
  if (issuerOrigin !== place.authorization_origin) apart.push(`issuer ${place.issuer}`);
  return { signsInAt: place.authorization_origin, apart };
}

/** Whether two places are the same for the operator's eyes: the authorisation may go on without asking again. */
export const samePlace = (a: SignInPlace | undefined | null, b: SignInPlace | undefined | null): boolean =>
  !!a && !!b && a.issuer === b.issuer && a.authorization_origin === b.authorization_origin && a.token_origin === b.token_origin;

const RETURN_KEY = "guilds.mcp-callback.return";

/** Where the callback page goes back to: the page that started the authorisation, in this tab. */
export function rememberReturn(path: string, storage: Pick<Storage, "setItem"> = sessionStorage): void {
  storage.setItem(RETURN_KEY, path);
}

/** The remembered page (once), or the connections; only a path of this console is followed. */
export function takeReturn(storage: Pick<Storage, "getItem" | "removeItem"> = sessionStorage): string {
  const path = storage.getItem(RETURN_KEY);
  storage.removeItem(RETURN_KEY);
  return path && /^\/(?!\/)/.test(path) ? path : "/connections";
}

/**
 * A 4xx's messages by the field they belong beside: each field of a 422 validation.failed, or
 * the one field another refusal names (`details.field`, e.g. a refused URL); null otherwise.
 */
export function fieldErrorsOf(error: unknown): Record<string, string> | null {
  if (!(error instanceof ApiError) || error.status < 400 || error.status >= 500) return null;
  if (error.code === "validation.failed") return error.fieldErrors();
  const field = error.details.field;
  return typeof field === "string" && field ? { [field]: `${error.message} (${error.code})` } : null;
}

/**
 * Numbers each load and each click: a load's answer is applied only while no later load or
 * click has begun, so a list fetched before a click cannot put back what the click changed.
 *
 * @example
 *   const turn = latch.begin();
 *   const data = await load();
 *   if (latch.current(turn)) setData(data);
 */
export function createLatch() {
  let turn = 0;
  return {
    begin: () => ++turn,
    current: (t: number) => t === turn,
  };
}

/** A tool's description as shown: the server's text, trimmed to a readable length. */
export const shownDescription = (text: string, max = 600) => (text.length > max ? `${text.slice(0, max)}…` : text);
