/**
 * MCP connections, their discovered tools and their grants (EXACT-021). Every query is
 * scoped by organisation. Credentials arrive and leave sealed (core/mcp/credentials.ts):
 * nothing here sees a token.
 */
import { and, asc, eq, inArray, notInArray, or, sql } from "drizzle-orm";
import type { AnyDatabase } from "./client";
import { sqlState, UNIQUE_VIOLATION } from "./outage";
import { agents, mcpConnections, mcpGrants, mcpTools } from "./schema";

/** A sealed value as core/secrets/crypto.ts makes it (named here: core/secrets reads core/db). */
export interface SealedValue {
  ciphertext: string;
  iv: string;
  keyVersion: string;
}

export type McpConnectionRow = typeof mcpConnections.$inferSelect;
export type McpToolRow = typeof mcpTools.$inferSelect;
export type McpGrantRow = typeof mcpGrants.$inferSelect;
export type McpStatus = "pending" | "ready" | "needs_auth" | "error";
export type McpAuthKind = "none" | "bearer" | "oauth";

/** The organisation already has a connection with that slug. */
export class McpSlugTaken extends Error {
  readonly code = "mcp_connection.slug_taken";
  constructor(readonly slug: string) {
    super(`The organisation already has an MCP connection with slug ${slug}`);
  }
}

/** A discovered tool's name is already another connection's tool name in the organisation. */
export class McpToolNameTaken extends Error {
  readonly code = "mcp.tool_name_collision";
  constructor() {
    super("A tool of this server would take the name of another connection's tool in the organisation; choose another slug");
  }
}

const sealedColumns = (sealed: SealedValue | null) => ({
  credentialCiphertext: sealed?.ciphertext ?? null,
  credentialIv: sealed?.iv ?? null,
  credentialKeyVersion: sealed?.keyVersion ?? null,
});

/** The stored credential of a row, still sealed, or null when it has none. */
export function sealedCredential(row: Pick<McpConnectionRow, "credentialCiphertext" | "credentialIv" | "credentialKeyVersion">): SealedValue | null {
  if (!row.credentialCiphertext || !row.credentialIv || !row.credentialKeyVersion) return null;
  return { ciphertext: row.credentialCiphertext, iv: row.credentialIv, keyVersion: row.credentialKeyVersion };
}

export interface NewConnection {
  /** Chosen by the caller when a credential is sealed to it before the insert. */
  id?: string;
  organisationId: string;
  slug: string;
  url: string;
  authKind: McpAuthKind;
  preset?: string | null;
  orgWide?: boolean;
  credential?: SealedValue | null;
}

/** Inserts a connection (status pending); McpSlugTaken when the slug is in use. */
export async function createConnection(db: AnyDatabase, input: NewConnection): Promise<McpConnectionRow> {
  try {
    const [row] = await db
      .insert(mcpConnections)
      .values({
        ...(input.id ? { id: input.id } : {}),
        organisationId: input.organisationId,
        slug: input.slug,
        url: input.url,
        authKind: input.authKind,
        preset: input.preset ?? null,
        orgWide: input.orgWide ?? false,
        ...sealedColumns(input.credential ?? null),
      })
      .returning();
    return row!;
  } catch (error) {
    if (sqlState(error) === UNIQUE_VIOLATION) throw new McpSlugTaken(input.slug);
    throw error;
  }
}

/** The organisation's connection with this id, or undefined (also for another organisation's). */
export async function getConnection(db: AnyDatabase, organisationId: string, id: string): Promise<McpConnectionRow | undefined> {
  const [row] = await db
    .select()
    .from(mcpConnections)
    .where(and(eq(mcpConnections.id, id), eq(mcpConnections.organisationId, organisationId)))
    .limit(1);
  return row;
}

/** The organisation's connections by slug. */
export async function listConnections(db: AnyDatabase, organisationId: string): Promise<McpConnectionRow[]> {
  return db.select().from(mcpConnections).where(eq(mcpConnections.organisationId, organisationId)).orderBy(asc(mcpConnections.slug));
}

export interface ConnectionChange {
  url?: string;
  orgWide?: boolean;
  authKind?: McpAuthKind;
  /** null removes the credential. */
  credential?: SealedValue | null;
  status?: McpStatus;
  lastError?: string | null;
  transport?: string | null;
  /** Non-secret OAuth facts (issuer, endpoints, client_id, scope, expires_at). */
  oauth?: Record<string, unknown>;
}

/** Changes a connection; undefined when the organisation has none with this id. */
export async function updateConnection(db: AnyDatabase, organisationId: string, id: string, change: ConnectionChange): Promise<McpConnectionRow | undefined> {
  const [row] = await db
    .update(mcpConnections)
    .set({
      url: change.url,
      orgWide: change.orgWide,
      authKind: change.authKind,
      ...(change.credential !== undefined ? sealedColumns(change.credential) : {}),
      status: change.status,
      lastError: change.lastError,
      transport: change.transport,
      oauth: change.oauth,
      updatedAt: sql`now()`,
    })
    .where(and(eq(mcpConnections.id, id), eq(mcpConnections.organisationId, organisationId)))
    .returning();
  return row;
}

/** Deletes a connection with its tools and grants; false when there was none. */
export async function deleteConnection(db: AnyDatabase, organisationId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(mcpConnections)
    .where(and(eq(mcpConnections.id, id), eq(mcpConnections.organisationId, organisationId)))
    .returning({ id: mcpConnections.id });
  return deleted.length > 0;
}

/** A connection's tools in the server's order. */
export async function toolsOf(db: AnyDatabase, connectionId: string): Promise<McpToolRow[]> {
  return db.select().from(mcpTools).where(eq(mcpTools.connectionId, connectionId)).orderBy(asc(mcpTools.position), asc(mcpTools.remoteName));
}

/**
 * Which of `names` are tool names of the organisation's MCP connections (SCRIPT-009: a script
 * may not take one). No statement for no names.
 */
export async function mcpToolNamesAmong(db: AnyDatabase, organisationId: string, names: string[]): Promise<Set<string>> {
  const candidates = [...new Set(names)];
  if (candidates.length === 0) return new Set();
  const rows = await db
    .select({ name: mcpTools.name })
    .from(mcpTools)
    .where(and(eq(mcpTools.organisationId, organisationId), inArray(mcpTools.name, candidates)));
  return new Set(rows.map((row) => row.name));
}

/** A tool as discovery hands it over, already named for the model (core/mcp/names.ts). */
export interface NamedTool {
  name: string;
  remoteName: string;
  title: string | null;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  annotations: Record<string, unknown> | null;
}

export interface DiscoveryRecord {
  transport: string;
  serverInfo: Record<string, unknown>;
  instructions: string | null;
  tools: NamedTool[];
}

/**
 * Replaces a connection's tool list with a discovery's, in one transaction, and marks it
 * ready. A tool listed before keeps its enabled flag; a new one takes
 * `enabledByDefault(remoteName)` (all of a plain connection's, a preset's curated ones).
 * McpToolNameTaken when a name is another connection's tool name in the organisation.
 */
export async function recordDiscovery(
  db: AnyDatabase,
  connection: Pick<McpConnectionRow, "id" | "organisationId">,
  discovery: DiscoveryRecord,
  enabledByDefault: (remoteName: string) => boolean,
): Promise<McpToolRow[]> {
  try {
    return await db.transaction(async (tx) => {
      // Serialises discoveries of one connection: two refreshes at once would interleave their upserts.
      await tx.execute(sql`select 1 from ${mcpConnections} where ${mcpConnections.id} = ${connection.id} for no key update`);
      const before = await tx
        .select({ remoteName: mcpTools.remoteName, enabled: mcpTools.enabled })
        .from(mcpTools)
        .where(eq(mcpTools.connectionId, connection.id));
      const kept = new Map(before.map((t) => [t.remoteName, t.enabled]));
      const listed = discovery.tools.map((t) => t.remoteName);
      await tx.delete(mcpTools).where(and(eq(mcpTools.connectionId, connection.id), listed.length > 0 ? notInArray(mcpTools.remoteName, listed) : undefined));
      const rows: McpToolRow[] = [];
      for (const [position, tool] of discovery.tools.entries()) {
        const values = {
          name: tool.name,
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema,
          outputSchema: tool.outputSchema,
          annotations: tool.annotations,
          position,
          updatedAt: sql`now()`,
        };
        const [row] = await tx
          .insert(mcpTools)
          .values({
            connectionId: connection.id,
            organisationId: connection.organisationId,
            remoteName: tool.remoteName,
            enabled: kept.get(tool.remoteName) ?? enabledByDefault(tool.remoteName),
            ...values,
          })
          .onConflictDoUpdate({ target: [mcpTools.connectionId, mcpTools.remoteName], set: values })
          .returning();
        rows.push(row!);
      }
      await tx
        .update(mcpConnections)
        .set({
          status: "ready",
          lastError: null,
          transport: discovery.transport,
          serverInfo: discovery.serverInfo,
          instructions: discovery.instructions,
          discoveredAt: sql`now()`,
          updatedAt: sql`now()`,
        })
        .where(eq(mcpConnections.id, connection.id));
      return rows;
    });
  } catch (error) {
    if (sqlState(error) === UNIQUE_VIOLATION) throw new McpToolNameTaken();
    throw error;
  }
}

/** Records why discovery failed; the tools of the last good discovery stay as they were. */
export async function recordDiscoveryFailure(
  db: AnyDatabase,
  connection: Pick<McpConnectionRow, "id" | "organisationId">,
  status: "error" | "needs_auth",
  message: string,
): Promise<McpConnectionRow | undefined> {
  return updateConnection(db, connection.organisationId, connection.id, { status, lastError: message });
}

/**
 * Enables or disables tools of a connection by remote name; returns the remote names it
 * does not have (nothing is changed then).
 */
export async function setToolsEnabled(db: AnyDatabase, connectionId: string, changes: ReadonlyMap<string, boolean>): Promise<string[]> {
  if (changes.size === 0) return [];
  return db.transaction(async (tx) => {
    const names = [...changes.keys()];
    const found = await tx
      .select({ remoteName: mcpTools.remoteName })
      .from(mcpTools)
      .where(and(eq(mcpTools.connectionId, connectionId), inArray(mcpTools.remoteName, names)));
    const have = new Set(found.map((r) => r.remoteName));
    const missing = names.filter((n) => !have.has(n));
    if (missing.length > 0) return missing;
    for (const [remoteName, enabled] of changes) {
      await tx
        .update(mcpTools)
        .set({ enabled, updatedAt: sql`now()` })
        .where(and(eq(mcpTools.connectionId, connectionId), eq(mcpTools.remoteName, remoteName)));
    }
    return [];
  });
}

/** The grants of these connections, grouped by connection id, oldest first. */
export async function grantsOfConnections(db: AnyDatabase, connectionIds: string[]): Promise<Map<string, McpGrantRow[]>> {
  const byId = new Map<string, McpGrantRow[]>(connectionIds.map((id) => [id, []]));
  if (connectionIds.length === 0) return byId;
  const rows = await db.select().from(mcpGrants).where(inArray(mcpGrants.connectionId, connectionIds)).orderBy(asc(mcpGrants.createdAt), asc(mcpGrants.id));
  for (const row of rows) byId.get(row.connectionId)!.push(row);
  return byId;
}

/** Grants a connection to one guild or one agent; null when that grant already exists. */
export async function addGrant(db: AnyDatabase, connectionId: string, target: { guildId: string } | { agentId: string }): Promise<McpGrantRow | null> {
  const [row] = await db
    .insert(mcpGrants)
    .values({ connectionId, guildId: "guildId" in target ? target.guildId : null, agentId: "agentId" in target ? target.agentId : null })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

/** Removes one grant of a connection; false when it has no such grant. */
export async function removeGrant(db: AnyDatabase, connectionId: string, grantId: string): Promise<boolean> {
  const deleted = await db
    .delete(mcpGrants)
    .where(and(eq(mcpGrants.id, grantId), eq(mcpGrants.connectionId, connectionId)))
    .returning({ id: mcpGrants.id });
  return deleted.length > 0;
}

/** A connection as a run opens it: where, how, its sealed credential, its enabled tools. */
export interface AgentConnection {
  id: string;
  organisationId: string;
  slug: string;
  url: string;
  transport: string | null;
  authKind: McpAuthKind;
  serverInfo: Record<string, unknown>;
  oauth: Record<string, unknown>;
  /** Still sealed: open with core/mcp/credentials.ts openCredential. */
  credential: SealedValue | null;
  tools: Array<Pick<McpToolRow, "name" | "remoteName" | "title" | "description" | "inputSchema" | "outputSchema" | "annotations" | "position">>;
}

/**
 * The ready connections that reach an agent: organisation-wide ones, those granted to its
 * guild and those granted to it, by slug, each with its enabled tools in the server's
 * order. A connection with no enabled tool is left out. Empty for an unknown agent.
 *
 * @example await connectionsForAgent(db, agentId) // [{ slug: "coingecko", tools: [{ name: "coingecko__get_simple_price", … }], … }]
 */
export async function connectionsForAgent(db: AnyDatabase, agentId: string): Promise<AgentConnection[]> {
  const [agent] = await db
    .select({ id: agents.id, guildId: agents.guildId, organisationId: agents.organisationId })
    .from(agents)
    .where(eq(agents.id, agentId))
    .limit(1);
  if (!agent) return [];
  const granted = sql`exists (select 1 from ${mcpGrants} where ${mcpGrants.connectionId} = ${mcpConnections.id}
    and (${mcpGrants.guildId} = ${agent.guildId} or ${mcpGrants.agentId} = ${agent.id}))`;
  const rows = await db
    .select({ connection: mcpConnections, tool: mcpTools })
    .from(mcpConnections)
    .innerJoin(mcpTools, and(eq(mcpTools.connectionId, mcpConnections.id), eq(mcpTools.enabled, true)))
    .where(and(eq(mcpConnections.organisationId, agent.organisationId), eq(mcpConnections.status, "ready"), or(eq(mcpConnections.orgWide, true), granted)))
    .orderBy(asc(mcpConnections.slug), asc(mcpTools.position), asc(mcpTools.remoteName));
  const out: AgentConnection[] = [];
  for (const { connection: c, tool: t } of rows) {
    let last = out[out.length - 1];
    if (last?.id !== c.id) {
      last = {
        id: c.id,
        organisationId: c.organisationId,
        slug: c.slug,
        url: c.url,
        transport: c.transport,
        authKind: c.authKind as McpAuthKind,
        serverInfo: c.serverInfo as Record<string, unknown>,
        oauth: c.oauth as Record<string, unknown>,
        credential: sealedCredential(c),
        tools: [],
      };
      out.push(last);
    }
    last.tools.push({
      name: t.name,
      remoteName: t.remoteName,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations,
      position: t.position,
    });
  }
  return out;
}
