import { type SQL, sql } from "drizzle-orm";
import type { OpeningState } from "../../../core/db/agent-state";
import type { Database } from "../../../core/db/client";
import { storedRow } from "../../../core/db/transcript";
import { countRowTokens } from "../../../core/projection/token-count";
import type { ChatPayload } from "../../../core/projection/types";
import { composeSystemPrompt, type SystemPromptInput } from "../../../core/prompt/system-prompt";
import { repositoryFolder } from "../../../core/repos/repository";
import { REPOS_DIR } from "../../../core/repos/types";
import { mcpSnapshot } from "../../../core/runs/mcp-snapshot";
import type { RunFacts, RunKind } from "../../../core/runs/rules";
import { scriptToolSchemas } from "../../../core/runs/script-snapshot";
import { buildSnapshot, type OfferedTool, type RunSnapshot } from "../../../core/runs/snapshot";
import type { RunRow } from "../../../core/runs/wire";
import { runHarness } from "../../../core/tasks/harness";
import { offeredTools, toolSchemas } from "../../../core/tools/registry";
import { RunSession } from "../state/run-session";

export interface RunOpening {
  snapshot: RunSnapshot;
  /** Row 0: the composed system prompt (RUN-010). */
  system: ChatPayload;
}

/**
 * What every run kind opens with: the snapshot (settings, flags, offered tools for this
 * kind and platform, secrets by name) and the composed system row with the State of this moment
 * (notes, secrets, Memory, the UTC clock, and a group run's chat history), from what
 * `readOpeningState` read. Direct, group and schedule runs share it.
 */
export function prepareOpening(state: OpeningState, kind: RunKind, now: Date, groupChat?: SystemPromptInput["groupChat"], search = false): RunOpening {
  const { agent } = state;
  const native = toolSchemas(offeredTools({ kind, ...agent, group_post: agent.groupPost, search })) as OfferedTool[];
  const scripts = agent.scripting ? state.scripts : [];
  const nativeNames = new Set(native.map((t) => t.function.name));
  // A task run offers nothing beyond its own tools (TASK-012), so no MCP tool either.
  const mcp = kind === "task" ? { tools: [], mcp: [] } : mcpSnapshot(state.mcp, nativeNames);
  // A script whose name a connected tool took since it was written is skipped (OP-SCRIPT-9).
  const taken = new Set([...nativeNames, ...mcp.tools.map((t) => t.function.name)]);
  // Native tools, then the scripts' own, then the MCP tools (EXACT-021).
  const tools = [...native, ...scriptToolSchemas(scripts, taken), ...mcp.tools];
  const system: ChatPayload = {
    role: "system",
    content: composeSystemPrompt({
      agent: { name: agent.name, instructions: agent.instructions },
      now,
      maxToolCalls: agent.maxToolCalls,
      kind,
      notes: state.notes,
      secrets: state.secrets,
      ...(agent.scripting ? { scripts } : {}),
      ...(agent.coding ? { repositories: state.repositories.map(stateRepository) } : {}),
      memory: { enabled: agent.memory, content: agent.memory ? state.memory : "" },
      ...(groupChat ? { groupChat } : {}),
    }),
  };
  // A coding agent's run records what generates it: a task run its harness, any other the platform's loop.
  return { snapshot: buildSnapshot(agent, tools, state.secrets, scripts, mcp.mcp, runHarness(agent, kind)), system };
}

/** Whether the platform offers web search (EXACT-015): it has Tavily's key. */
export function searchOffered(env: { TAVILY_API_KEY?: string }): boolean {
  return Boolean(env.TAVILY_API_KEY);
}

/** A repository as State names it (REPO-013): its folder, where it is cloned, its default branch. */
function stateRepository(repository: { full_name: string; default_branch: string }) {
  const name = repositoryFolder(repository.full_name);
  return { name, path: `${REPOS_DIR}/${name}`, default_branch: repository.default_branch };
}

/** A run as it opens: its row, its first message (if any), and a guard for the write. */
export interface Opening {
  kind: RunKind;
  run: { title: string | null; scheduleId?: string; metadata: Record<string, unknown> };
  /** Row 1, generation 1: the operator's message, a schedule's wake-up, a group chat's info row. */
  wake?: ChatPayload;
  wakeMetadata?: Record<string, unknown>;
  groupChat?: SystemPromptInput["groupChat"];
  /**
   * A data-modifying statement with RETURNING (a schedule advancing past its fire) that runs
   * in the opening's own statement: when it returns no row, nothing of the run is written.
   */
  claim?: SQL;
  /**
   * More data-modifying CTEs of the same statement (`name as (...)`), written only with the
   * run: they may read `r`, the run's insert (a task's messages delivered by its first row).
   */
  writes?: SQL;
  /** Runs once the run is written, before it generates. */
  opened?: (runId: string) => Promise<void>;
  /**
   * The platform offers web search (TAVILY_API_KEY set, EXACT-015): read from the
   * environment when the run opens, so the snapshot records whether tavily_search was offered.
   */
  search?: boolean;
}

/**
 * Writes a run in ONE statement (data-modifying CTEs commit together, in one round trip):
 * the claim, the run, its system row, and with a first message that row at generation 1.
 * The run is inserted only when the claim returned a row, and its rows only with the run,
 * so nothing of a run is ever half-written. Returns the run's session and its row, built from
 * what the statement sent and the run's few columns it returned (no read-back), or null when
 * the claim failed.
 */
export async function writeOpening(
  db: Database,
  state: OpeningState,
  runId: string,
  now: Date,
  opening: Opening,
): Promise<{ session: RunSession; run: RunRow } | null> {
  const { agent } = state;
  const { snapshot, system } = prepareOpening(state, opening.kind, now, opening.groupChat, opening.search === true);
  const generation = opening.wake ? 1 : 0;
  const rows = [
    { seq: 0, generation: null, role: "system", payload: system, metadata: { source: "system" }, token_count: countRowTokens(system, {}) },
    ...(opening.wake
      ? [
          {
            seq: 1,
            generation: 1,
            role: "user",
            payload: opening.wake,
            metadata: opening.wakeMetadata ?? {},
            token_count: countRowTokens(opening.wake, opening.wakeMetadata ?? {}),
          },
        ]
      : []),
  ];
  const rowsJson = JSON.stringify(rows);
  const result = await db.execute<{ run: { status: string; created_at: string; updated_at: string } | null }>(sql`
    with claim as (${opening.claim ?? sql`select 1`}),
    r as (
      insert into runs (id, agent_id, kind, title, schedule_id, snapshot, generation, metadata)
      select ${runId}::uuid, ${agent.id}::uuid, ${opening.kind}::text, ${opening.run.title}::text, ${opening.run.scheduleId ?? null}::uuid,
             ${JSON.stringify(snapshot)}::jsonb, ${generation}::int, ${JSON.stringify(opening.run.metadata)}::jsonb
      where exists (select 1 from claim)
      returning status, created_at, updated_at
    ),
    m as (
      insert into messages (run_id, seq, generation, role, payload, metadata, token_count)
      select ${runId}::uuid, v.seq, v.generation, v.role, v.payload, v.metadata, v.token_count
      from r, jsonb_to_recordset(${rowsJson}::jsonb) as v(seq int, generation int, role text, payload jsonb, metadata jsonb, token_count int)
    )${opening.writes ? sql`, ${opening.writes}` : sql``}
    select (select to_jsonb(r) from r) as run`);
  const written = result.rows[0];
  if (!written?.run) return null;
  const session = new RunSession(
    runId,
    {
      kind: opening.kind as RunFacts["kind"],
      status: written.run.status as RunFacts["status"],
      archivedAt: null,
      metadata: opening.run.metadata as RunFacts["metadata"],
      errors: [],
      generation,
    },
    snapshot,
    { agentId: agent.id, guildId: agent.guildId, organisationId: agent.organisationId },
  );
  // The rows as written, through JSON as the statement sent them: the system prompt is not read back.
  for (const row of JSON.parse(rowsJson) as typeof rows) session.push(storedRow({ ...row, tokenCount: row.token_count }));
  // With a first message it generates now, on what this opening read a moment ago.
  if (opening.wake) session.openedWith = { spend: state.spend };
  const run: RunRow = {
    id: runId,
    agentId: agent.id,
    kind: opening.kind,
    status: written.run.status,
    title: opening.run.title,
    scheduleId: opening.run.scheduleId ?? null,
    snapshot,
    generation,
    errors: [],
    metadata: opening.run.metadata,
    archivedAt: null,
    completedAt: null,
    createdAt: new Date(written.run.created_at),
    updatedAt: new Date(written.run.updated_at),
  };
  return { session, run };
}

/** A one-shot run for an archived or deleted agent: nothing to retry. */
export class AgentUnavailable extends Error {
  constructor() {
    super("the agent is archived or gone");
  }
}
