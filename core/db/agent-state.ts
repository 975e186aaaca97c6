import { eq, type Placeholder, type SQL, sql } from "drizzle-orm";
import type { McpReach } from "../runs/mcp-snapshot";
import type { ScriptSnapshotEntry } from "../scripts/types";
import { usageMonth } from "../usage/pricing";
import { effectiveSpendLimit } from "../usage/spend-limit";
import type { Database } from "./client";
import { agents } from "./schema";
import type { SecretRef } from "./secrets";
import { heldSpend } from "./spend-holds";

type AgentRow = typeof agents.$inferSelect;

/** The organisation's effective monthly spend limit, this month's spend and the holds of calls in flight (USAGE-005). */
export interface MonthSpend {
  limitUsd: number | null;
  monthCostUsd: number;
  /** Worst-case costs of what-if variants still running (core/usage/reservation.ts). */
  reservedUsd: number;
}

/** What a run opens with beside the agent's row: the State its system row shows, and the spend. */
export interface OpeningState {
  agent: AgentRow;
  secrets: SecretRef[];
  notes: Array<{ title: string }>;
  /** The Memory document ("" without one); shown only when the agent's memory flag is on. */
  memory: string;
  /** The script catalog as the snapshot records it (SCRIPT-020), by name; empty when scripting is off. */
  scripts: ScriptSnapshotEntry[];
  /** A coding agent's guild repositories, oldest first (REPO-013); empty without coding. */
  repositories: Array<{ full_name: string; default_branch: string }>;
  /** The ready MCP connections reaching the agent, by slug, each with its enabled tools in listing order (EXACT-021). */
  mcp: McpReach[];
  spend: MonthSpend;
}

/*
 * The fragments below name the agent by spelled-out columns ("agents"."id"): in a
 * single-table select drizzle drops the table from `${agents.id}`, which inside these
 * subqueries would name the subquery's own table.
 */

/** The secrets that reach the agent (SEC-001), as resolveSecrets returns them: id, name, description, by name. */
function secretsOf(agentId: SQL, guildId: SQL, organisationId: SQL): SQL {
  return sql`coalesce((select json_agg(json_build_object('id', s.id, 'name', s.name, 'description', s.description) order by s.name)
    from secrets s where s.organisation_id = ${organisationId} and (s.org_wide or exists (
      select 1 from secret_grants g where g.secret_id = s.id and (g.guild_id = ${guildId} or g.agent_id = ${agentId})))), '[]'::json)`;
}

/**
 * The MCP connections that reach the agent as its secrets do (org-wide, granted to its guild,
 * granted to it) and ready, each with its enabled tools in the server's listing order: what a
 * new run offers (EXACT-021, EXACT-023). The same choice as `connectionsForAgent`
 * (core/db/mcp.ts), read in the opening's own statement so MCP costs run creation no round trip.
 */
function mcpOf(agentId: SQL, guildId: SQL, organisationId: SQL): SQL {
  return sql`coalesce((select json_agg(json_build_object('connection_id', c.id, 'slug', c.slug, 'url', c.url,
      'tools', (select coalesce(json_agg(json_build_object('name', t.name, 'remote_name', t.remote_name, 'description', t.description,
        'input_schema', t.input_schema, 'output_schema', t.output_schema) order by t.position, t.remote_name), '[]'::json) from mcp_tools t where t.connection_id = c.id and t.enabled)) order by c.slug)
    from mcp_connections c where c.organisation_id = ${organisationId} and c.status = 'ready'
      and (c.org_wide or exists (select 1 from mcp_grants g where g.connection_id = c.id and (g.guild_id = ${guildId} or g.agent_id = ${agentId})))), '[]'::json)`;
}

/** The organisation's limits, this month's spend and the holds in flight, as text so numerics keep their digits. */
function spendOf(organisationId: SQL, month: string | Placeholder): SQL {
  return sql`(select json_build_object('limit', o.monthly_spend_limit_usd::text, 'ceiling', o.spend_ceiling_usd::text, 'spent', u.cost_usd::text,
      'reserved', ${heldSpend(sql`o.id`)}::text)
    from organisations o left join org_monthly_usage_totals u on u.organisation_id = o.id and u.month = ${month}
    where o.id = ${organisationId})`;
}

type SpendRow = { limit: string | null; ceiling: string | null; spent: string | null; reserved?: string | null } | null;
const toSpend = (row: SpendRow): MonthSpend => ({
  limitUsd: effectiveSpendLimit(row?.limit, row?.ceiling),
  monthCostUsd: Number(row?.spent ?? 0),
  reservedUsd: Number(row?.reserved ?? 0),
});

/**
 * The columns of everything a run's opening reads beside its agent's row (selected as
 * `agent`): its secrets, note titles and Memory for the system row's State, the MCP tools
 * it is offered, and the spend of `month` (usageMonth) for the first generation's limit
 * check. A statement that reads `agents` selects them beside its own (a schedule's fire
 * reads its due schedule with them), or alone (`readOpeningState`).
 */
export function openingStateColumns(month: string | Placeholder) {
  const id = sql.raw(`"agents"."id"`);
  const org = sql.raw(`"agents"."organisation_id"`);
  return {
    agent: agents,
    secrets: sql<SecretRef[]>`${secretsOf(id, sql.raw(`"agents"."guild_id"`), org)}`,
    notes: sql<
      Array<{ title: string }>
    >`coalesce((select json_agg(json_build_object('title', n.title) order by n.title) from notes n where n.agent_id = ${id}), '[]'::json)`,
    memory: sql<string>`coalesce((select m.content from memories m where m.agent_id = ${id}), '')`,
    scripts: sql<ScriptSnapshotEntry[]>`case when "agents"."scripting" then coalesce((select json_agg(json_build_object('id', a.id, 'name', a.key,
      'description', a.description, 'parameters', a.parameters, 'source', a.source, 'source_hash', a.source_hash) order by a.key)
      from artifacts a where a.agent_id = ${id} and a.kind = 'script'), '[]'::json) else '[]'::json end`,
    repositories: sql<OpeningState["repositories"]>`case when "agents"."coding" then coalesce((select json_agg(json_build_object('full_name', g.full_name,
      'default_branch', g.default_branch) order by g.created_at, g.id) from guild_repositories g where g.guild_id = "agents"."guild_id"), '[]'::json) else '[]'::json end`,
    mcp: sql<McpReach[]>`${mcpOf(id, sql.raw(`"agents"."guild_id"`), org)}`,
    spend: sql<SpendRow>`${spendOf(org, month)}`,
  };
}

/** The opening state out of a row that selected `openingStateColumns`. */
export function openingStateOf(row: Omit<OpeningState, "spend"> & { spend: SpendRow }): OpeningState {
  return {
    agent: row.agent,
    secrets: row.secrets,
    notes: row.notes,
    memory: row.memory,
    scripts: row.scripts,
    repositories: row.repositories,
    mcp: row.mcp,
    spend: toSpend(row.spend),
  };
}

/**
 * `openingStateColumns` with the agent's row, in one statement. Null when the agent is gone.
 *
 * @example const state = await readOpeningState(db, agentId, now); // state.agent.archivedAt, state.notes, …
 */
export async function readOpeningState(db: Database, agentId: string, now: Date): Promise<OpeningState | null> {
  const [row] = await db
    .select(openingStateColumns(usageMonth(now)))
    .from(agents)
    .where(eq(agents.id, agentId))
    .limit(1);
  return row ? openingStateOf(row) : null;
}

/** What each generation's start must know fresh. */
export interface GenerationState {
  secrets: SecretRef[];
  spend: MonthSpend;
}

/**
 * The columns of what each generation's start reads: the agent's secrets as they are now
 * (SEC-001..003) and this month's spend (USAGE-005). A statement selects them beside its
 * own (the user row that opens the generation), or alone (`readGenerationState`).
 */
export function generationStateColumns(scope: { agentId: string; guildId: string; organisationId: string }, now: Date): SQL {
  return sql`${secretsOf(sql`${scope.agentId}::uuid`, sql`${scope.guildId}::uuid`, sql`${scope.organisationId}::uuid`)} as secrets,
    ${spendOf(sql`${scope.organisationId}::uuid`, usageMonth(now))} as spend`;
}

/** The generation state out of a row that selected `generationStateColumns`. */
export function generationStateOf(row: Record<string, unknown>): GenerationState {
  return { secrets: row.secrets as SecretRef[], spend: toSpend(row.spend as SpendRow) };
}

/** `generationStateColumns` in a statement of their own. */
export async function readGenerationState(
  db: Database,
  scope: { agentId: string; guildId: string; organisationId: string },
  now: Date,
): Promise<GenerationState> {
  const result = await db.execute<Record<string, unknown>>(sql`select ${generationStateColumns(scope, now)}`);
  return generationStateOf(result.rows[0]!);
}
