/**
 * The warm pool's claim (`POST /claim`). A warm box (setting GUEST_WARM "1") is started
 * before anyone knows whose it will be: no secrets, a pool token. The claim gives it its
 * tenant once: the agent's token, its environment (its secrets, SEC-005) and where its home
 * is saved on shutdown. Until then the guest serves nothing of a tenant's.
 */
import { bearerMatches } from "./auth";

/** What a valid claim body holds. */
export interface Claim {
  token: string;
  env: Record<string, string>;
  /** The claim's GUEST_HOME_SAVE_URL, when it sends one. */
  saveUrl?: string;
}

export type ParsedClaim = { ok: true; claim: Claim } | { ok: false; message: string };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Visible ASCII only: the token must travel in an Authorization header, or nobody could reach the box again. */
const TOKEN = /^[\x21-\x7e]{16,}$/;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const invalid = (message: string): ParsedClaim => ({ ok: false, message });

/**
 * Checks a claim body. Messages name the field and never hold a value: the env's values are
 * the tenant's secrets, the token and the save address are capabilities.
 *
 * @example parseClaim({ token: "t".repeat(16), env: { API_KEY: "k" } }) // { ok: true, claim: { token, env: { API_KEY: "k" } } }
 * @example parseClaim({ token: "short", env: {} }) // { ok: false, message: "token must be a string of at least 16 visible ASCII characters" }
 */
export function parseClaim(body: unknown): ParsedClaim {
  if (!isObject(body)) return invalid("the body must be a JSON object {token, env, settings?}");
  // An unknown field is refused rather than ignored: a misspelt `settings` would lose the save address.
  const unknown = Object.keys(body).find((key) => key !== "token" && key !== "env" && key !== "settings");
  if (unknown !== undefined) return invalid(`unknown field ${JSON.stringify(unknown.slice(0, 64))}`);
  const { token, env, settings } = body;
  if (typeof token !== "string" || !TOKEN.test(token)) return invalid("token must be a string of at least 16 visible ASCII characters");
  if (!isObject(env)) return invalid("env must be an object of strings");
  for (const [name, value] of Object.entries(env)) {
    // `__proto__` would set the object's prototype when merged, not a variable.
    if (!ENV_NAME.test(name) || name === "__proto__") return invalid(`env name ${JSON.stringify(name.slice(0, 128))} is not a variable name`);
    // The guest's settings never come from the environment (config.ts); none goes into it either.
    if (name.startsWith("GUEST_")) return invalid(`env name ${name} is reserved for the guest's settings (GUEST_*)`);
    if (typeof value !== "string") return invalid(`env ${name} must be a string`);
    if (value.includes("\0")) return invalid(`env ${name} holds a NUL byte`);
  }
  const claim: Claim = { token, env: env as Record<string, string> };
  if (settings === undefined) return { ok: true, claim };
  if (!isObject(settings)) return invalid("settings must be an object");
  const other = Object.keys(settings).find((key) => key !== "GUEST_HOME_SAVE_URL");
  if (other !== undefined) return invalid(`settings.${other.slice(0, 64)} cannot be claimed (only GUEST_HOME_SAVE_URL)`);
  const saveUrl = settings.GUEST_HOME_SAVE_URL;
  if (saveUrl !== undefined) {
    if (typeof saveUrl !== "string" || !isHttpUrl(saveUrl)) return invalid("settings.GUEST_HOME_SAVE_URL must be an http(s) URL");
    claim.saveUrl = saveUrl;
  }
  return { ok: true, claim };
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * Who the guest serves: the bearer token it accepts now and, for a warm guest, whether it
 * was claimed. The one holder the routes, the commands' environment and the shutdown save read.
 *
 * @example
 * const identity = new GuestIdentity({ token: poolToken, warm: true, baseEnv });
 * identity.claim({ token: agentToken, env: { API_KEY: "…" } }); // "claimed"; baseEnv now holds API_KEY
 */
export class GuestIdentity {
  readonly warm: boolean;
  #token: string;
  readonly #startToken: string;
  readonly #baseEnv: NodeJS.ProcessEnv;
  #saveUrl: string | undefined;
  #claimed = false;

  constructor(options: { token: string; warm: boolean; baseEnv: NodeJS.ProcessEnv; saveUrl?: string | undefined }) {
    this.warm = options.warm;
    this.#token = options.token;
    this.#startToken = options.token;
    this.#baseEnv = options.baseEnv;
    this.#saveUrl = options.saveUrl;
  }

  /** A warm guest nobody has claimed yet: it answers nothing but /health and /claim. */
  get unclaimed(): boolean {
    return this.warm && !this.#claimed;
  }

  get claimed(): boolean {
    return this.#claimed;
  }

  /** Where the shutdown save pushes the home: the claim's address, else the settings'. */
  get saveUrl(): string | undefined {
    return this.#saveUrl;
  }

  /** Whether an Authorization header carries the token the guest accepts now. */
  accepts(header: string | undefined): boolean {
    return bearerMatches(header, this.#token);
  }

  /**
   * Whether a header may ask for the claim: the current token, or the one the guest started
   * with. A pool's claim that lost a race arrives with the pool token after the winner
   * changed it; it should learn the box is taken (409), not that its token is wrong (401).
   */
  mayClaim(header: string | undefined): boolean {
    return this.accepts(header) || bearerMatches(header, this.#startToken);
  }

  /**
   * Takes a claim, once. Synchronous from the check to the last change, so of two claims
   * racing, exactly one passes and the other changes nothing. The env is merged into the
   * base environment in place: exec and services copy it at each spawn, so a later command sees it.
   */
  claim(claim: Claim): "claimed" | "not_warm" | "already_claimed" {
    if (!this.warm) return "not_warm";
    if (this.#claimed) return "already_claimed";
    this.#claimed = true;
    this.#token = claim.token;
    Object.assign(this.#baseEnv, claim.env);
    if (claim.saveUrl !== undefined) this.#saveUrl = claim.saveUrl;
    return "claimed";
  }
}
