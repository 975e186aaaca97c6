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

/**
 * Secrets (`wrangler secret put`) and optional vars, each unset by default. Each setting has
 * a doc of its own: docs/configuration.md's table is generated from these (`npm run docs`),
 * with `@default` (the value in effect when unset) and `@secret` (set with
 * `wrangler secret put`, never in wrangler.toml).
 */
export interface Settings {
  /**
   * Key of the default model provider (MODEL_BASE_URL's); sent to that provider only.
   * @secret
   */
  MODEL_API_KEY?: string;
  /**
   * Key-encryption key of secret values: base64 of 32 bytes, or a comma list of
   * `version:base64` whose last entry encrypts new values (core/secrets/crypto.ts).
   * @secret
   */
  SECRETS_KEK?: string;
  /**
   * Older keys still needed to decrypt values after a rotation (same forms as SECRETS_KEK).
   * @secret
   */
  SECRETS_KEK_PREVIOUS?: string;
  /**
   * Postgres connection string; Neon's pooled one in production.
   * @secret
   */
  DATABASE_URL?: string;
  /**
   * Where new agent and guild objects are created, near the database: a Durable Object
   * location hint (wnam, enam, sam, weur, eeur, apac, oc, afr, me). Unset: near the first
   * caller. `npm run deploy` passes it from the Neon region of DATABASE_URL.
   */
  DATABASE_LOCATION_HINT?: string;
  /** Local development: host:port/secret-path of the WebSocket-to-TCP proxy in front of Postgres (and of its `/sql`). */
  NEON_WS_PROXY?: string;
  /**
   * The Worker's own queries: `http` (Neon's HTTP query path) or `pool` (a WebSocket pool per request); decision 0023.
   * @default http
   */
  DATABASE_QUERY_PATH?: string;
  /** Extra model prices, JSON `{"model-prefix": {"input", "output", "cachedInput"}}` in USD per million tokens, added to the built-in table (core/usage/pricing.ts). */
  MODEL_PRICES?: string;
  /**
   * Price of a model missing from the table, on the platform's key: JSON {input, output, cachedInput} USD per million tokens.
   * Unset: such a model's generation is refused (`usage.unpriced_model`) before any call.
   */
  DEFAULT_MODEL_PRICE?: string;
  /**
   * Address kinds an agent's model_base_url (and MCP server URLs) may reach: comma list of
   * loopback, private, link-local, or * (core/providers/egress.ts). Unset: none.
   */
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
   * Tavily's key: with it, runs are offered tavily_search (EXACT-015); the agent object calls
   * TAVILY_API_URL. `npm start` sets the stand-in's; `TAVILY_API_KEY=off` there: no web search.
   * @secret
   */
  TAVILY_API_KEY?: string;
  /**
   * Where tavily_search sends its queries (the local stack's stand-in).
   * @default https://api.tavily.com
   */
  TAVILY_API_URL?: string;
  /**
   * Turns on the group-history selector (GROUP-004): its provider key.
   * @secret
   */
  TYPESAFE_API_KEY?: string;
  /**
   * The group-history selector's model.
   * @default jev
   */
  GROUP_SELECTOR_MODEL?: string;
  /**
   * The group-history selector's base URL.
   * @default MODEL_BASE_URL
   */
  GROUP_SELECTOR_BASE_URL?: string;
  /**
   * Open event streams of one run; 429 `stream.too_many_subscribers` past it.
   * @default 200
   */
  MAX_RUN_SUBSCRIBERS?: string;
  /**
   * Open event streams of one guild's chat; 429 `stream.too_many_subscribers` past it.
   * @default 500
   */
  MAX_GUILD_SUBSCRIBERS?: string;
  /**
   * Bytes queued for one event stream subscriber before it is dropped (it reconnects with Last-Event-ID).
   * @default 1048576 (1 MiB)
   */
  SSE_QUEUE_BYTES?: string;
  /**
   * Largest provider request in bytes, images included: older images become notes,
   * `provider.request_too_large` when the latest message's do not fit.
   * @default 20971520 (20 MiB)
   */
  MAX_PROVIDER_REQUEST_BYTES?: string;
  /**
   * Key of the sandboxes' environment fingerprint (a fixed local default when unset, core/sandbox/fingerprint.ts).
   * @secret
   */
  SANDBOX_FINGERPRINT_KEY?: string;
  /**
   * The image reference of the standard boxes (SBX-011): a box created from another
   * reference is recreated at its next ensure. Deploys set it to the image's tag; unset,
   * the Dockerfile path of wrangler.toml stands in.
   */
  SANDBOX_IMAGE?: string;
  /** The image reference of the lite boxes, as SANDBOX_IMAGE is the standard ones'. */
  SANDBOX_IMAGE_LITE?: string;
  /**
   * Lite boxes the warm pool keeps started, 0 to 20 (decision 0034): an agent's first sandbox
   * tool takes one instead of starting a box. Each waiting box is billed as a running
   * container; `npm start` sets 1.
   * @default 0
   */
  SANDBOX_WARM_LITE?: string;
  /**
   * Standard boxes the warm pool keeps started, 0 to 20 (decision 0034), for coding and
   * browser agents and task runs; `npm start` sets 1.
   * @default 0
   */
  SANDBOX_WARM_STANDARD?: string;
  /**
   * Largest model reply in bytes: past it `provider.reply_too_large`, nothing is stored.
   * @default 2097152 (2 MiB)
   */
  MAX_REPLY_BYTES?: string;
  /**
   * Most tool calls in one model reply: past it `provider.too_many_tool_calls`, nothing is stored.
   * @default 64
   */
  MAX_REPLY_TOOL_CALLS?: string;
  /**
   * A run's MCP tool call limit in seconds, at most 600 (durable-objects/agent/generation/tools/mcp.ts).
   * @default 60
   */
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
   * Where task boxes' harnesses reach the model gateway when outbound interception cannot (a
   * local engine): the Worker's `/api/model-gateway` route as the boxes reach it, e.g.
   * `http://172.17.0.1:8788/api/model-gateway`. Unset (production), boxes use the intercepted
   * host and the route answers 404.
   */
  MODEL_GATEWAY_URL?: string;
  /**
   * The platform's GitHub App id (OP-REPO-6). Without the id and key, connecting answers 503.
   */
  GITHUB_APP_ID?: string;
  /**
   * The GitHub App's private key, the PEM GitHub issues (PKCS#8 or PKCS#1).
   * @secret
   */
  GITHUB_APP_PRIVATE_KEY?: string;
  /**
   * The secret of the GitHub App's webhook (the App's settings, Webhook secret): deliveries to
   * `POST /api/github/webhooks` are accepted only when signed with it. Unset: that route answers
   * 503 `github.webhooks_not_configured`.
   * @secret
   */
  GITHUB_WEBHOOK_SECRET?: string;
  /**
   * GitHub's REST base (GitHub Enterprise's `https://<host>/api/v3`, the local forge's).
   * @default https://api.github.com
   */
  GITHUB_API_URL?: string;
  /**
   * The git base repositories are cloned from.
   * @default https://github.com
   */
  GITHUB_GIT_URL?: string;
  /**
   * What claiming an installation needs (OP-REPO-6): the App's public slug, its page
   * `<GITHUB_WEB_URL>/apps/<slug>`. Without the slug and client, connecting answers 503.
   */
  GITHUB_APP_SLUG?: string;
  /** The App's OAuth client id, for the code GitHub's redirect carries. */
  GITHUB_APP_CLIENT_ID?: string;
  /**
   * The App's OAuth client secret (generated on the App's page).
   * @secret
   */
  GITHUB_APP_CLIENT_SECRET?: string;
  /**
   * GitHub's web base: the App's install page and the OAuth code exchange.
   * @default https://github.com
   */
  GITHUB_WEB_URL?: string;
}

declare global {
  namespace Cloudflare {
    /** `env` from "cloudflare:workers" (and the tests' `env`) carries the settings too. */
    interface Env extends Settings {}
  }
}
