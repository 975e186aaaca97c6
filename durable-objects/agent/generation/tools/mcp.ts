/**
 * A run's MCP connections for one generation (ToolContext.mcp): read once at the start, their
 * sealed credentials opened in the agent object (never in the box, SEC-013) so their tokens
 * join the redaction set before any call (ERR-011); one client per connection, connected at
 * its first call and closed when the generation ends. A connection deleted, revoked or
 * pointed elsewhere since the snapshot answers its tools with an error the model reads.
 */
import { sql } from "drizzle-orm";
import type { Env } from "../../../../bindings/env";
import type { Database } from "../../../../core/db/client";
import type { CallOptions } from "../../../../core/mcp/client";
import { credentialTokens } from "../../../../core/mcp/credentials";
import { describeError, logEvent } from "../../../../core/output/log";
import { platformRedactor, type SecretValue } from "../../../../core/output/redaction";
import { mcpServerId, mcpTarget } from "../../../../core/runs/mcp-snapshot";
import type { McpCallResult, McpCalls } from "../../../../core/tools/types";
import { positiveInt } from "../../../common/sse-hub";
import type { RunSession } from "../../state/run-session";
import { type McpClientHandle, type McpConnectionRow, type McpCredential, mcpConnector, refreshOauthTokens } from "./mcp-connector";

/** A call's limit unless MCP_CALL_TIMEOUT_S says otherwise. */
export const MCP_CALL_TIMEOUT_S = 60;
/** The most MCP_CALL_TIMEOUT_S may set: a call longer than this holds the run's generation too long. */
export const MCP_CALL_TIMEOUT_MAX_S = 600;

/**
 * The configured limit of one MCP call, in seconds.
 *
 * @example mcpCallTimeoutS("5") // 5
 * @example mcpCallTimeoutS("9999") // 60
 */
export function mcpCallTimeoutS(configured: string | undefined): number {
  const value = positiveInt(configured);
  return value !== undefined && value <= MCP_CALL_TIMEOUT_MAX_S ? value : MCP_CALL_TIMEOUT_S;
}

/** The generation's MCP calls, the tokens its redaction set takes, and the close at its end. */
export interface GenerationMcp extends McpCalls {
  tokens: SecretValue[];
  close(): Promise<void>;
}

interface Row extends McpConnectionRow {
  /** Whether a grant (or org_wide) still reaches the run's agent. */
  reaches: boolean;
}

/**
 * Reads the snapshot's connections in one statement and opens their credentials.
 *
 * @example const mcp = await openMcpCalls({ db, env, session, signal }); redactor.withSecrets(mcp.tokens)
 */
export async function openMcpCalls(input: { db: Database; env: Env; session: RunSession; signal: AbortSignal }): Promise<GenerationMcp> {
  const { db, env, session, signal: generationSignal } = input;
  const { agentId, guildId, organisationId } = session.scope;
  const ids = session.snapshot.mcp.map((c) => c.connection_id);
  const read = async () =>
    (
      await db.execute<Row & Record<string, unknown>>(sql`
    select c.id, c.organisation_id, c.slug, c.url, c.transport, c.auth_kind, c.status,
           c.credential_ciphertext, c.credential_iv, c.credential_key_version,
           (c.org_wide or exists (select 1 from mcp_grants g where g.connection_id = c.id
             and (g.guild_id = ${guildId}::uuid or g.agent_id = ${agentId}::uuid))) as reaches
    from mcp_connections c
    where c.organisation_id = ${organisationId}::uuid and c.id = any(${`{${ids.join(",")}}`}::uuid[])`)
    ).rows;
  let rows = await read();
  const oauth = rows.filter((row) => row.auth_kind === "oauth" && row.status === "ready");
  if (oauth.length > 0) {
    await refreshOauthTokens(env, db, oauth, session.runId);
    rows = await read();
  }
  const connector = mcpConnector(env);
  const byId = new Map<string, Row>();
  const credentials = new Map<string, McpCredential | null>();
  const tokens: SecretValue[] = [];
  for (const row of rows) {
    byId.set(row.id, row);
    // A credential no key opens any more makes its tools refuse; the generation goes on.
    const credential = await connector.openCredential(row).catch((error: unknown) => {
      logEvent("warn", { operation: "mcp.credential", run_id: session.runId, connection_id: row.id, ...describeError(error) });
      return undefined;
    });
    credentials.set(row.id, credential ?? null);
    // Named after the slug in the marker: `[REDACTED:mcp:<slug>]`.
    if (credential) tokens.push(...credentialTokens(credential).map((value) => ({ name: `mcp:${row.slug}`, value })));
  }
  // What the calls log never shows a token the server put in an error.
  const redactor = platformRedactor(env).withSecrets(tokens);
  const timeoutMs = mcpCallTimeoutS(env.MCP_CALL_TIMEOUT_S) * 1000;
  const clients = new Map<string, Promise<McpClientHandle>>();

  const refusal = (name: string): string | { row: Row; credential: McpCredential | null; remoteName: string; tool: CallOptions["tool"] } => {
    const target = mcpTarget(session.snapshot.mcp, name);
    if (!target) return `${name} is not an MCP tool of this run`;
    const { entry, remoteName, outputSchema } = target;
    const row = byId.get(entry.connection_id);
    if (!row) return `the MCP connection ${entry.slug} was deleted after this run started; its tools cannot be called`;
    if (!row.reaches) return `the MCP connection ${entry.slug} is no longer granted to this agent; its tools cannot be called`;
    if (row.status === "needs_auth") return `the MCP connection ${entry.slug} must be authorised again by an operator`;
    if (mcpServerId(row.url) !== entry.server_id) return `the MCP connection ${entry.slug} points at another server since this run started`;
    const credential = credentials.get(row.id) ?? null;
    if (row.auth_kind !== "none" && !credential) return `the MCP connection ${entry.slug} has no credential this platform can open`;
    // The tool as the run was offered it: the SDK checks structuredContent against its frozen
    // output schema, and asks the server for no tools/list of its own.
    const offered = session.snapshot.tools.find((t) => t.function.name === name)?.function.parameters ?? { type: "object" };
    return { row, credential, remoteName, tool: { name: remoteName, inputSchema: offered, outputSchema } };
  };

  return {
    tokens,
    async call(name, args, signal): Promise<{ ok: true; result: McpCallResult } | { ok: false; message: string }> {
      const target = refusal(name);
      if (typeof target === "string") return { ok: false, message: target };
      const { row, credential, remoteName, tool } = target;
      let client = clients.get(row.id);
      if (!client) {
        // A cancel while it connects stops the connect too, not only the call.
        client = connector.connect(row, credential, generationSignal);
        clients.set(row.id, client);
        // A failed connect is tried again at the next call.
        client.catch(() => clients.delete(row.id));
      }
      try {
        const handle = await client;
        return { ok: true, result: await handle.call(remoteName, args, { timeoutMs, tool, ...(signal ? { signal } : {}) }) };
      } catch (error) {
        if (signal?.aborted) throw error;
        logEvent("warn", { operation: "mcp.call", run_id: session.runId, connection_id: row.id, tool: remoteName, ...describeError(error) }, redactor);
        return { ok: false, message: callFailure(row.slug, remoteName, error, timeoutMs) };
      }
    },
    async close() {
      const open = [...clients.values()];
      clients.clear();
      await Promise.allSettled(open.map(async (c) => (await c).close()));
    },
  };
}

/** Why a call failed, as the model reads it. */
function callFailure(slug: string, tool: string, error: unknown, timeoutMs: number): string {
  const message = error instanceof Error ? error.message : String(error);
  if ((error as { code?: unknown } | null)?.code === "mcp.timeout")
    return `the MCP tool ${tool} of ${slug} did not answer within ${timeoutMs / 1000} s; the call was cancelled`;
  return `the MCP server of ${slug} failed the call to ${tool}: ${message.slice(0, 1_000)}`;
}
