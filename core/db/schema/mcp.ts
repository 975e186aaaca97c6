import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, unique, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id, updatedAt } from "./columns";
import { agents, guilds, organisations } from "./tenancy";

/**
 * A remote MCP server an organisation connects to (EXACT-021). Its tokens (a bearer token,
 * or OAuth access and refresh tokens and a registered client's secret) are sealed like
 * secrets in `credential_*` and never reach a box (SEC-013). Descriptions and instructions
 * a server sends are stored as they came: untrusted text, never merged into a prompt.
 */
export const mcpConnections = pgTable(
  "mcp_connections",
  {
    id: id(),
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    // The prefix of every tool name the model sees: `<slug>__<tool>`.
    slug: text("slug").notNull(),
    url: text("url").notNull(),
    // The catalog preset it was added from, if any (core/mcp presets).
    preset: text("preset"),
    // 'streamable_http' or 'sse' (the old HTTP+SSE transport), as discovery found; null until then.
    transport: text("transport"),
    authKind: text("auth_kind").notNull().default("none"),
    // Reaches every agent of the organisation; otherwise only its grants (as secrets do).
    orgWide: boolean("org_wide").notNull().default(false),
    // 'pending' (never discovered), 'ready', 'needs_auth' (OAuth not authorised or refresh refused), 'error'.
    status: text("status").notNull().default("pending"),
    lastError: text("last_error"),
    serverInfo: jsonb("server_info").notNull().default({}),
    instructions: text("instructions"),
    // Non-secret OAuth facts: issuer, endpoints, client_id, scope, access token expiry.
    oauth: jsonb("oauth").notNull().default({}),
    credentialCiphertext: text("credential_ciphertext"),
    credentialIv: text("credential_iv"),
    credentialKeyVersion: text("credential_key_version"),
    discoveredAt: at("discovered_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique("mcp_connections_organisation_slug_unique").on(t.organisationId, t.slug),
    check("mcp_connections_auth_kind_check", sql`${t.authKind} in ('none', 'bearer', 'oauth')`),
    check("mcp_connections_status_check", sql`${t.status} in ('pending', 'ready', 'needs_auth', 'error')`),
  ],
);

/** A tool a connection's server listed at its last discovery, with the name the model sees. */
export const mcpTools = pgTable(
  "mcp_tools",
  {
    id: id(),
    connectionId: uuid("connection_id")
      .notNull()
      .references(() => mcpConnections.id, { onDelete: "cascade" }),
    // Copied from the connection so a name is unique across the organisation's connections.
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    // `<slug>__<tool>` sanitised to [A-Za-z0-9_-], at most 64 characters.
    name: text("name").notNull(),
    remoteName: text("remote_name").notNull(),
    title: text("title"),
    description: text("description").notNull().default(""),
    inputSchema: jsonb("input_schema").notNull().default({}),
    outputSchema: jsonb("output_schema"),
    annotations: jsonb("annotations"),
    enabled: boolean("enabled").notNull().default(true),
    // The order the server listed it in, so offered schemas keep a stable order (EXACT-005).
    position: integer("position").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique("mcp_tools_connection_remote_unique").on(t.connectionId, t.remoteName),
    unique("mcp_tools_organisation_name_unique").on(t.organisationId, t.name),
  ],
);

/** A grant of one connection to exactly one guild or one agent (as secret_grants). */
export const mcpGrants = pgTable(
  "mcp_grants",
  {
    id: id(),
    connectionId: uuid("connection_id")
      .notNull()
      .references(() => mcpConnections.id, { onDelete: "cascade" }),
    guildId: uuid("guild_id").references(() => guilds.id, { onDelete: "cascade" }),
    agentId: uuid("agent_id").references(() => agents.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("mcp_grants_connection_idx").on(t.connectionId),
    index("mcp_grants_guild_idx").on(t.guildId),
    index("mcp_grants_agent_idx").on(t.agentId),
    unique("mcp_grants_connection_guild_agent_unique").on(t.connectionId, t.guildId, t.agentId).nullsNotDistinct(),
    check("mcp_grants_target_check", sql`(${t.guildId} is null) <> (${t.agentId} is null)`),
  ],
);

/**
 * One OAuth authorisation in flight: the signed state's nonce, spent exactly once, and the
 * PKCE verifier sealed like a secret until the callback exchanges the code.
 */
export const mcpOauthStates = pgTable(
  "mcp_oauth_states",
  {
    nonce: text("nonce").primaryKey(),
    connectionId: uuid("connection_id")
      .notNull()
      .references(() => mcpConnections.id, { onDelete: "cascade" }),
    verifierCiphertext: text("verifier_ciphertext").notNull(),
    verifierIv: text("verifier_iv").notNull(),
    verifierKeyVersion: text("verifier_key_version").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    expiresAt: at("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("mcp_oauth_states_expires_idx").on(t.expiresAt)],
);
