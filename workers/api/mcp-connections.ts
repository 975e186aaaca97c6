import { inArray } from "drizzle-orm";
import { Hono } from "hono";
import type { Env } from "../../bindings/env";
import {
  addGrant,
  createConnection,
  deleteConnection,
  getConnection,
  grantsOfConnections,
  type McpConnectionRow,
  type McpGrantRow,
  McpSlugTaken,
  type McpToolRow,
  removeGrant,
  setToolsEnabled,
  updateConnection,
} from "../../core/db/mcp";
import { mcpConnections, mcpTools } from "../../core/db/schema";
import { type McpCredential, sealCredential } from "../../core/mcp/credentials";
import { mcpUrlIssue } from "../../core/mcp/egress-fetch";
import { preregisteredClient, readFacts, signInOrigins } from "../../core/mcp/oauth";
import { findPreset } from "../../core/mcp/presets";
import { type RefreshOutcome, refreshConnection } from "../../core/mcp/refresh";
import { allowanceFrom } from "../../core/providers/egress";
import { keySetFrom } from "../../core/secrets/crypto";
import type { AppEnv } from "../http/context";
import { failure, jsonBody, ok, operation, pathId, query } from "../http/contract";
import { ApiError, notFound, validationFailed } from "../http/errors";
import { ListQuery } from "../http/page.schema";
import { listPage, organisationRows } from "../http/pagination";
import { grantRoutes } from "./grant-routes";
import { McpConnection, McpConnectionCreate, McpConnectionPage, McpConnectionPatch, McpGrantCreate } from "./mcp-connections.schema";
import { oauthAuthFor } from "./mcp-oauth-tools";

/**
 * MCP connections of the organisation (EXACT-021): remote MCP servers whose tools agents
 * may call, with their discovered tools and grants. A token goes in on create or update
 * and is sealed before it reaches the database; no response carries it. What a server
 * says about itself (info, instructions, tool descriptions) is returned under
 * `from_server`, as untrusted text.
 */

type Db = AppEnv["Variables"]["db"];

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const str = (v: unknown) => (typeof v === "string" ? v : null);

const toConnection = (row: McpConnectionRow, tools: McpToolRow[], grants: McpGrantRow[]) => {
  const info = (row.serverInfo ?? {}) as Record<string, unknown>;
  return {
    id: row.id,
    slug: row.slug,
    url: row.url,
    preset: row.preset,
    transport: row.transport as "streamable_http" | "sse" | null,
    auth: { kind: row.authKind as "none" | "bearer" | "oauth", has_credential: row.credentialCiphertext !== null, ...oauthClientOf(row) },
    org_wide: row.orgWide,
    status: row.status as "pending" | "ready" | "needs_auth" | "error",
    last_error: row.lastError,
    from_server: { name: str(info.name), version: str(info.version), title: str(info.title), instructions: row.instructions },
    tools: tools.map((t) => ({
      name: t.name,
      remote_name: t.remoteName,
      enabled: t.enabled,
      position: t.position,
      from_server: {
        title: t.title,
        description: t.description,
        input_schema: t.inputSchema as Record<string, unknown>,
        output_schema: t.outputSchema as Record<string, unknown> | null,
        annotations: t.annotations as Record<string, unknown> | null,
      },
    })),
    grants: grants.map((g) => ({ id: g.id, guild_id: g.guildId, agent_id: g.agentId, created_at: g.createdAt.toISOString() })),
    discovered_at: iso(row.discoveredAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
};

/** Connections with their tools and grants, in the order given. */
async function wire(db: Db, rows: McpConnectionRow[]) {
  const ids = rows.map((r) => r.id);
  const tools = new Map<string, McpToolRow[]>(ids.map((id) => [id, []]));
  if (ids.length > 0) {
    const all = await db.select().from(mcpTools).where(inArray(mcpTools.connectionId, ids)).orderBy(mcpTools.position, mcpTools.remoteName);
    for (const t of all) tools.get(t.connectionId)!.push(t);
  }
  const grants = await grantsOfConnections(db, ids);
  return rows.map((r) => toConnection(r, tools.get(r.id)!, grants.get(r.id)!));
}

const one = async (db: Db, row: McpConnectionRow) => (await wire(db, [row]))[0]!;

async function findConnection(db: Db, organisationId: string, id: string) {
  const row = await getConnection(db, organisationId, id);
  if (!row) throw notFound("mcp_connection");
  return row;
}

/** The key set, or 503 when the operator has not configured SECRETS_KEK. */
async function keys(env: Env) {
  try {
    return await keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS);
  } catch (error) {
    throw new ApiError(503, "secrets.unconfigured", `Credentials cannot be stored: ${(error as Error).message}`);
  }
}

const field = (name: string, message: string) => validationFailed([{ field: name, message }]);

/** 422 naming `url` when the platform would not call it (core/providers/egress.ts rules). */
function checkUrl(env: Env, url: string) {
  const issue = mcpUrlIssue(url, allowanceFrom(env.ALLOW_PRIVATE_MODEL_URLS));
  if (issue) throw field("url", issue.message);
}

async function discoverNow(c: { env: Env; get(key: "db"): Db }, row: McpConnectionRow): Promise<RefreshOutcome> {
  const keySet = await keys(c.env);
  return refreshConnection(c.get("db"), row, {
    keys: keySet,
    allow: allowanceFrom(c.env.ALLOW_PRIVATE_MODEL_URLS),
    presetsSetting: c.env.MCP_PRESETS_URL_OVERRIDES,
    // OAuth connections' tokens, refreshed when due (workers/api/mcp-oauth-tools.ts).
    oauthAuth: oauthAuthFor(c.env, c.get("db"), keySet),
  });
}

/** Whether discovery can run without anyone authorising first. */
/** An OAuth connection's client as the API shows it (never its secret), and where it signs in once discovery found it. */
function oauthClientOf(row: McpConnectionRow): {
  client?: { id: string; registered_by: "platform" | "operator" };
  authorization_server?: ReturnType<typeof signInOrigins>;
} {
  if (row.authKind !== "oauth") return {};
  const facts = row.oauth as { client_id?: unknown; preregistered?: unknown } | null;
  const endpoints = readFacts(row.oauth);
  return {
    ...(typeof facts?.client_id === "string" && facts.client_id
      ? { client: { id: facts.client_id, registered_by: facts.preregistered === true ? ("operator" as const) : ("platform" as const) } }
      : {}),
    ...(endpoints ? { authorization_server: signInOrigins(endpoints) } : {}),
  };
}

const discoverable = (row: McpConnectionRow) => row.authKind === "none" || (row.authKind === "bearer" && row.credentialCiphertext !== null);

const REFRESH_FAILURES =
  "mcp.unreachable, mcp.timeout, mcp.protocol: the server could not be reached or answered wrongly; mcp.unauthorized: it refused the credentials";

export const mcpConnectionRoutes = new Hono<AppEnv>()
  .post(
    "/",
    operation({
      operationId: "createMcpConnection",
      summary: "Connect an MCP server; its tools are discovered at once when no authorisation is pending",
      description:
        "Answers 201 whether discovery worked or not: a failed discovery leaves the connection stored with status `error` and `last_error`; an OAuth connection waits in `needs_auth`.",
      tag: "MCP",
      responses: { 201: ok("The new connection, without its token", McpConnection) },
      body: true,
      invalid: "a URL the platform does not call (url), an unknown preset (preset)",
      conflict: "mcp_connection.slug_taken: the organisation already has a connection with that slug",
    }),
    jsonBody(McpConnectionCreate),
    async (c) => {
      const body = c.req.valid("json");
      const organisationId = c.get("organisationId");
      const preset = body.preset === undefined ? null : findPreset(body.preset, c.env.MCP_PRESETS_URL_OVERRIDES);
      if (body.preset !== undefined && !preset) throw field("preset", "is not a preset of this platform (GET /api/mcp/presets)");
      const url = body.url ?? preset?.url;
      if (!url) throw field("url", "is required without a preset");
      checkUrl(c.env, url);
      const auth = body.auth ?? { kind: preset?.auth === "oauth" ? "oauth" : "none" };
      if (preset?.auth === "bearer" && auth.kind !== "bearer") throw field("auth", `the ${preset.title} preset needs a bearer token`);
      // The id is chosen here because the sealed credential is bound to it.
      const id = crypto.randomUUID();
      const client = auth.kind === "oauth" && "client" in auth ? auth.client : undefined;
      const credential: McpCredential | null =
        auth.kind === "bearer"
          ? { kind: "bearer", token: auth.token }
          : client?.secret
            ? { kind: "oauth", access_token: "", client_secret: client.secret }
            : null;
      const sealed = credential ? await sealCredential(await keys(c.env), organisationId, id, credential) : null;
      const db = c.get("db");
      let row: McpConnectionRow;
      try {
        row = await createConnection(db, {
          id,
          organisationId,
          slug: body.slug,
          url,
          authKind: auth.kind,
          preset: preset?.key ?? null,
          orgWide: body.org_wide,
          credential: sealed,
        });
      } catch (error) {
        if (error instanceof McpSlugTaken) throw new ApiError(409, error.code, error.message, { field: "slug" });
        throw error;
      }
      if (discoverable(row)) row = (await discoverNow(c, row)).row ?? row;
      else {
        // An operator's client is kept as the connection's OAuth facts until discovery adds the rest.
        const oauth = client ? preregisteredClient(client) : undefined;
        row = (await updateConnection(db, organisationId, id, { status: "needs_auth", ...(oauth ? { oauth } : {}) })) ?? row;
      }
      return c.json(await one(db, row), 201);
    },
  )
  .get(
    "/",
    operation({
      operationId: "listMcpConnections",
      summary: "The organisation's MCP connections, newest first, with their tools and grants (never their tokens)",
      tag: "MCP",
      responses: { 200: ok("A page of connections", McpConnectionPage) },
      query: true,
    }),
    query(ListQuery),
    async (c) => {
      const db = c.get("db");
      const page = listPage(c.req.valid("query"));
      const rows = await organisationRows(db, mcpConnections, c.get("organisationId"), page);
      const wired = new Map((await wire(db, rows.slice(0, page.limit))).map((w) => [w.id, w]));
      return c.json(page.result(rows, (r) => wired.get(r.id)));
    },
  )
  .get(
    "/:id",
    operation({
      operationId: "getMcpConnection",
      summary: "Read a connection with its tools (as the server described them) and grants",
      tag: "MCP",
      responses: { 200: ok("The connection", McpConnection) },
      notFound: "mcp_connection",
    }),
    pathId("mcp_connection"),
    async (c) => c.json(await one(c.get("db"), await findConnection(c.get("db"), c.get("organisationId"), c.req.valid("param").id))),
  )
  .patch(
    "/:id",
    operation({
      operationId: "updateMcpConnection",
      summary: "Change a connection's URL, token or scope, or enable and disable its tools",
      description: "A new URL or token discovers the tools again (as on create: a failure is stored on the connection, not answered as an error).",
      tag: "MCP",
      responses: { 200: ok("The changed connection", McpConnection) },
      notFound: "mcp_connection",
      body: true,
      invalid: "a URL the platform does not call (url), a token for a connection that is not bearer (token), a tool it does not have (tools)",
    }),
    pathId("mcp_connection"),
    jsonBody(McpConnectionPatch),
    async (c) => {
      const db = c.get("db");
      const organisationId = c.get("organisationId");
      const body = c.req.valid("json");
      let row = await findConnection(db, organisationId, c.req.valid("param").id);
      if (body.url !== undefined) checkUrl(c.env, body.url);
      if (body.token !== undefined && row.authKind !== "bearer") throw field("token", "only a bearer connection takes a token");
      if (body.tools) {
        const changes = new Map(body.tools.map((t) => [t.remote_name, t.enabled]));
        const missing = await setToolsEnabled(db, row.id, changes);
        if (missing.length > 0) throw field("tools", `the connection has no tool ${missing.map((m) => JSON.stringify(m)).join(", ")}`);
      }
      const sealed =
        body.token === undefined ? undefined : await sealCredential(await keys(c.env), organisationId, row.id, { kind: "bearer", token: body.token });
      row = (await updateConnection(db, organisationId, row.id, { url: body.url, orgWide: body.org_wide, ...(sealed ? { credential: sealed } : {}) })) ?? row;
      if ((body.url !== undefined || sealed) && discoverable(row)) row = (await discoverNow(c, row)).row ?? row;
      return c.json(await one(db, row));
    },
  )
  .delete(
    "/:id",
    operation({
      operationId: "deleteMcpConnection",
      summary: "Delete a connection with its tools and grants; runs that started with it keep their snapshot",
      tag: "MCP",
      responses: { 204: ok("Deleted") },
      notFound: "mcp_connection",
    }),
    pathId("mcp_connection"),
    async (c) => {
      if (!(await deleteConnection(c.get("db"), c.get("organisationId"), c.req.valid("param").id))) throw notFound("mcp_connection");
      return c.body(null, 204);
    },
  )
  .post(
    "/:id/refresh",
    operation({
      operationId: "refreshMcpConnection",
      summary: "Discover the connection's tools again; each keeps its enabled flag, new ones follow the preset",
      tag: "MCP",
      responses: { 200: ok("The connection with its tools as discovered now", McpConnection) },
      notFound: "mcp_connection",
      conflict: "mcp_connection.needs_auth: the connection has no credential yet (authorise it first)",
      errors: {
        422: failure("mcp.url_refused: the URL or a redirect points where the platform does not call; mcp.tool_name_collision: two tools would get one name"),
        502: failure(`The server could not be used (${REFRESH_FAILURES}); the connection keeps its last tools, with status error`),
      },
    }),
    pathId("mcp_connection"),
    async (c) => {
      const row = await findConnection(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const outcome = await discoverNow(c, row);
      if (outcome.ok) return c.json(await one(c.get("db"), outcome.row));
      const status = outcome.code.startsWith("mcp_connection.")
        ? 409
        : outcome.code === "mcp.url_refused" || outcome.code === "mcp.tool_name_collision"
          ? 422
          : 502;
      throw new ApiError(status, outcome.code, outcome.message, { status: outcome.status });
    },
  )
  .route(
    "/",
    grantRoutes<McpConnectionRow>({
      resource: "mcp_connection",
      grant: "mcp_grant",
      noun: "connection",
      tag: "MCP",
      operationIds: { grant: "grantMcpConnection", revoke: "revokeMcpGrant" },
      schema: McpConnection,
      body: McpGrantCreate,
      find: findConnection,
      add: async (_env, db, row, target) => (await addGrant(db, row.id, target)) !== null,
      remove: (_env, db, row, grantId) => removeGrant(db, row.id, grantId),
      wire: one,
    }),
  );
