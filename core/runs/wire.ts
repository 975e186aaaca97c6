import type { runs } from "../db/schema";
import { recordedRepos } from "../repos/changes";
import { type RunKind, runLabel } from "./rules";
import type { RunSnapshot } from "./snapshot";

/** A run as stored (drizzle's row). */
export type RunRow = typeof runs.$inferSelect;

/** The run payload (RUN-023): chain, continuation, schedule and repos (REPO-019) fields only when set. */
export function toRun(run: RunRow, cost: string, extra: { generating?: boolean; withSnapshot?: boolean } = {}) {
  const metadata = run.metadata as Record<string, unknown>;
  const snapshot = run.snapshot as RunSnapshot;
  return {
    id: run.id,
    agent_id: run.agentId,
    kind: run.kind,
    status: run.status,
    label: runLabel(run.kind as RunKind, run.title),
    title: run.title,
    generation: run.generation,
    ...(extra.generating !== undefined ? { generating: extra.generating } : {}),
    cost_usd: cost,
    schedule_id: run.scheduleId,
    ...(metadata.instruction_hash ? { instruction_hash: metadata.instruction_hash } : {}),
    ...(metadata.chain ? { chain: metadata.chain } : {}),
    ...(metadata.continued_by_run_id ? { continued_by_run_id: metadata.continued_by_run_id } : {}),
    ...(metadata.repos ? { repos: recordedRepos(metadata) } : {}),
    errors: run.errors,
    metadata,
    ...(extra.withSnapshot && snapshot?.model
      ? {
          snapshot: {
            model: snapshot.model,
            flags: snapshot.flags,
            tools: snapshot.tools.map((t) => t.function.name),
            secrets: snapshot.secrets,
            scripts: (snapshot.scripts ?? []).map(({ source: _source, ...script }) => script),
            mcp: snapshot.mcp ?? [],
            ...(snapshot.harness ? { harness: snapshot.harness } : {}),
          },
        }
      : {}),
    archived: run.archivedAt !== null,
    archived_at: run.archivedAt?.toISOString() ?? null,
    completed_at: run.completedAt?.toISOString() ?? null,
    created_at: run.createdAt.toISOString(),
    updated_at: run.updatedAt.toISOString(),
  };
}
