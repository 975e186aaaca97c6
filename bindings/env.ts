import type { AgentObject } from "../durable-objects/agent/agent-object";
import type { GuildObject } from "../durable-objects/guild/guild-object";

/** Bindings of the edge Worker and the agent objects (see wrangler.toml). */
export interface Env {
  AGENT: DurableObjectNamespace<AgentObject>;
  GUILD: DurableObjectNamespace<GuildObject>;
  ASSETS?: Fetcher;
  /** Uploaded attachments (images) referenced from user rows. */
  ATTACHMENTS?: R2Bucket;
  /** Key of the default model provider (a secret). */
  MODEL_API_KEY?: string;
  /** Postgres connection string; Neon in production. */
  DATABASE_URL?: string;
  /**
   * Where new agent and guild objects are created, near the database: a Durable Object
   * location hint (wnam, enam, sam, weur, eeur, apac, oc, afr, me). Unset: near the first caller.
   */
  DATABASE_LOCATION_HINT?: string;
  /** Local development: host:port/secret-path of the WebSocket-to-TCP proxy in front of Postgres. */
  NEON_WS_PROXY?: string;
  /** Model a new agent gets when its body names none. */
  DEFAULT_MODEL?: string;
  /** Base URL of the platform's default OpenAI-compatible provider. */
  MODEL_BASE_URL?: string;
  /** Extra model prices, JSON (see core/usage/pricing.ts). */
  MODEL_PRICES?: string;
  /** Price of a model missing from the table, on the platform's key: JSON {input, output, cachedInput} USD per million tokens. */
  DEFAULT_MODEL_PRICE?: string;
  /** Address kinds an agent's model_base_url may reach: comma list of loopback, private, link-local, or * (core/providers/egress.ts). */
  ALLOW_PRIVATE_MODEL_URLS?: string;
  /** Turns on the group-history selector (GROUP-004): its provider key. */
  TYPESAFE_API_KEY?: string;
  /** The selector's model (default "jev") and base URL (default MODEL_BASE_URL). */
  GROUP_SELECTOR_MODEL?: string;
  GROUP_SELECTOR_BASE_URL?: string;
  /** Largest accepted JSON body in bytes (default 1 MiB). */
  MAX_BODY_BYTES?: string;
  /** Per-organisation request budget of the API (`[[ratelimits]]`); unset, nothing is limited. */
  API_RATE_LIMIT?: RateLimit;
  /** Per-token and per-address budget checked before the database (`[[ratelimits]]`); unset, nothing is limited. */
  API_AUTH_RATE_LIMIT?: RateLimit;
  /** Most routines one agent may have (default 20). */
  MAX_SCHEDULES_PER_AGENT?: string;
  /** Open event streams of one run (default 200) and of one guild's chat (default 500); 429 past them. */
  MAX_RUN_SUBSCRIBERS?: string;
  MAX_GUILD_SUBSCRIBERS?: string;
  /** Bytes queued for one event stream subscriber before it is dropped (default 1 MiB). */
  SSE_QUEUE_BYTES?: string;
  /** Largest provider request in bytes, images included (default 20 MB). */
  MAX_PROVIDER_REQUEST_BYTES?: string;
  /** Largest model reply in bytes (default 2 MB) and most tool calls in one reply (default 64). */
  MAX_REPLY_BYTES?: string;
  MAX_REPLY_TOOL_CALLS?: string;
}
