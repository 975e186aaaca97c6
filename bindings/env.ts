/**
 * Bindings of the edge Worker and the agent objects.
 *
 * What wrangler.toml declares (objects, bucket, assets, rate limits, vars) comes from
 * `CloudflareBindings`, generated into worker-configuration.d.ts by `npm run cf-typegen`
 * (`npm test` fails when that file is stale). Only what the config cannot declare is listed
 * here: secrets and vars that are unset unless an operator sets them. A name added to the
 * config's [vars] that is also listed here stops the typecheck, so the two cannot drift.
 */
export interface Env extends CloudflareBindings, Settings {}

/** Secrets (`wrangler secret put`) and optional vars, each unset by default. */
export interface Settings {
  /** Key of the default model provider (a secret). */
  MODEL_API_KEY?: string;
  /**
   * Key-encryption key of secret values (a secret): base64 of 32 bytes, or a comma list of
   * `version:base64` whose last entry encrypts new values (core/secrets/crypto.ts).
   */
  SECRETS_KEK?: string;
  /** Older keys still needed to decrypt values after a rotation (same forms; a secret). */
  SECRETS_KEK_PREVIOUS?: string;
  /** Postgres connection string; Neon in production (a secret). */
  DATABASE_URL?: string;
  /**
   * Where new agent and guild objects are created, near the database: a Durable Object
   * location hint (wnam, enam, sam, weur, eeur, apac, oc, afr, me). Unset: near the first caller.
   */
  DATABASE_LOCATION_HINT?: string;
  /** Local development: host:port/secret-path of the WebSocket-to-TCP proxy in front of Postgres (and of its `/sql`). */
  NEON_WS_PROXY?: string;
  /** The Worker's own queries: `http` (default, Neon's HTTP query path) or `pool` (a WebSocket pool per request); decision 0023. */
  DATABASE_QUERY_PATH?: string;
  /** Extra model prices, JSON (see core/usage/pricing.ts). */
  MODEL_PRICES?: string;
  /** Price of a model missing from the table, on the platform's key: JSON {input, output, cachedInput} USD per million tokens. */
  DEFAULT_MODEL_PRICE?: string;
  /** Address kinds an agent's model_base_url may reach: comma list of loopback, private, link-local, or * (core/providers/egress.ts). */
  ALLOW_PRIVATE_MODEL_URLS?: string;
  /**
   * The platform's operators: organisation ids (comma- or space-separated) whose tokens may read
   * platform-wide figures (GET /api/platform/usage, decision 0021). Unset: nobody may.
   */
  PLATFORM_OPERATOR_ORGANISATIONS?: string;
  /** MCP presets pointed elsewhere: comma list of key=url (core/mcp/presets.ts); `local=<url>` offers the local test preset. */
  MCP_PRESETS_URL_OVERRIDES?: string;
  /**
   * The platform's public origin, e.g. https://guilds.example.com: images then reach remote
   * providers as 15-minute signed URLs of its attachment route (ATT-005). Unset, loopback or
   * private: images travel as data URLs (ATT-006).
   */
  PUBLIC_URL?: string;
  /**
   * Tavily's key (a secret): with it, runs are offered tavily_search (EXACT-015); the agent
   * object calls TAVILY_API_URL (default https://api.tavily.com; the local stack's stand-in).
   */
  TAVILY_API_KEY?: string;
  TAVILY_API_URL?: string;
  /** Turns on the group-history selector (GROUP-004): its provider key (a secret). */
  TYPESAFE_API_KEY?: string;
  /** The selector's model (default "jev") and base URL (default MODEL_BASE_URL). */
  GROUP_SELECTOR_MODEL?: string;
  GROUP_SELECTOR_BASE_URL?: string;
  /** Open event streams of one run (default 200) and of one guild's chat (default 500); 429 past them. */
  MAX_RUN_SUBSCRIBERS?: string;
  MAX_GUILD_SUBSCRIBERS?: string;
  /** Bytes queued for one event stream subscriber before it is dropped (default 1 MiB). */
  SSE_QUEUE_BYTES?: string;
  /** Largest provider request in bytes, images included (default 20 MB). */
  MAX_PROVIDER_REQUEST_BYTES?: string;
  /** Key of the sandboxes' environment fingerprint (a secret; a fixed local default when unset, core/sandbox/fingerprint.ts). */
  SANDBOX_FINGERPRINT_KEY?: string;
  /**
   * The image references of the standard and lite boxes (SBX-011): a box created from another
   * reference is recreated at its next ensure. Deploys set them to the images' tags; unset,
   * the Dockerfile paths of wrangler.toml stand in.
   */
  SANDBOX_IMAGE?: string;
  SANDBOX_IMAGE_LITE?: string;
  /** Largest model reply in bytes (default 2 MB) and most tool calls in one reply (default 64). */
  MAX_REPLY_BYTES?: string;
  MAX_REPLY_TOOL_CALLS?: string;
  /** A run's MCP tool call limit in seconds (default 60, at most 600; durable-objects/agent/generation/tools/mcp.ts). */
  MCP_CALL_TIMEOUT_S?: string;
  /**
   * Set by the local stack when no container engine runs (a laptop without Docker): why the
   * sandboxes are off, for the `sandbox.unavailable` answers and the console.
   */
  SANDBOX_UNAVAILABLE_REASON?: string;
  /**
   * Where task boxes reach the git gateway when the Container's outbound interception cannot
   * (a local engine, whose stand-in sidecar does not intercept): the Worker's
   * `/api/git-gateway` route as the boxes reach it, e.g. `http://172.17.0.1:8788/api/git-gateway`.
   * Unset (production), boxes use the intercepted host and the route answers 404.
   */
  GIT_GATEWAY_URL?: string;
  /**
   * The platform's GitHub App (OP-REPO-6): its id, its private key (PKCS#8 or PKCS#1 PEM, a
   * secret), the REST base (default https://api.github.com) and the git base repositories are
   * cloned from (default https://github.com). Without the id and key, connecting answers 503.
   */
  GITHUB_APP_ID?: string;
  GITHUB_APP_PRIVATE_KEY?: string;
  GITHUB_API_URL?: string;
  GITHUB_GIT_URL?: string;
  /**
   * What claiming an installation needs (OP-REPO-6): the App's public slug (its page
   * `<GITHUB_WEB_URL>/apps/<slug>`), its OAuth client id and secret (a secret) for the code
   * GitHub's redirect carries, and GitHub's web base (default https://github.com). Without
   * the slug and client, connecting answers 503.
   */
  GITHUB_APP_SLUG?: string;
  GITHUB_APP_CLIENT_ID?: string;
  GITHUB_APP_CLIENT_SECRET?: string;
  GITHUB_WEB_URL?: string;
}

declare global {
  namespace Cloudflare {
    /** `env` from "cloudflare:workers" (and the tests' `env`) carries the settings too. */
    interface Env extends Settings {}
  }
}
