import { and, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { Hono } from "hono";
import type * as z from "zod";
import type { Database } from "../../core/db/client";
import { agents, attachments, runs } from "../../core/db/schema";
import type { AttachmentRef } from "../../core/projection/types";
import { runLabel, type RunKind } from "../../core/runs/rules";
import type { RunSnapshot } from "../../core/runs/snapshot";
import { isUuid } from "../../core/validation/fields";
import { Run, RunCreate, RunListQuery, RunPage } from "../../core/validation/run";
import type { Refused } from "../../bindings/outcome";
import { agentObject } from "../../bindings/objects";
import type { AppEnv } from "../context";
import { jsonBody, ok, operation, pathId, query } from "../contract";
import { ApiError, notFound, validationFailed } from "../errors";
import { listPage } from "../pagination";
import { findAgent } from "./agents";

type RunRow = typeof runs.$inferSelect;

/** Cost of a run: the sum of its priced assistant rows. */
// Spelled out: drizzle drops table qualifiers from columns in a single-table select.
const runCost = sql<string>`coalesce((select sum(m.cost_usd) from messages m where m.run_id = "runs"."id"), 0)::text`;

/** The caller's run with this id and its agent's scope, or 404. */
export async function findRun(db: Database, organisationId: string, id: string) {
  if (!isUuid(id)) throw notFound("run");
  const [found] = await db.select({ run: runs, cost: runCost, guildId: agents.guildId })
    .from(runs).innerJoin(agents, eq(agents.id, runs.agentId))
    .where(and(eq(runs.id, id), eq(agents.organisationId, organisationId))).limit(1);
  if (!found) throw notFound("run");
  return found;
}

/** The run payload (RUN-023): chain, continuation and schedule fields only when set. */
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
    errors: run.errors,
    metadata,
    ...(extra.withSnapshot && snapshot?.model
      ? { snapshot: { model: snapshot.model, flags: snapshot.flags, tools: snapshot.tools.map((t) => t.function.name), secrets: snapshot.secrets } }
      : {}),
    archived: run.archivedAt !== null,
    archived_at: run.archivedAt?.toISOString() ?? null,
    completed_at: run.completedAt?.toISOString() ?? null,
    created_at: run.createdAt.toISOString(),
    updated_at: run.updatedAt.toISOString(),
  };
}

/** Attachment ids of the caller's organisation as refs for metadata.attachments (ATT-001, OP-ATT-5). */
export async function attachmentRefs(db: Database, organisationId: string, ids: string[], field: string): Promise<AttachmentRef[]> {
  if (ids.length === 0) return [];
  const rows = await db.select().from(attachments)
    .where(and(inArray(attachments.id, ids), eq(attachments.organisationId, organisationId)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = ids.findIndex((id) => !byId.has(id));
  if (missing !== -1) throw validationFailed([{ field: `${field}.${missing}`, message: "no such attachment" }]);
  return ids.map((id) => {
    const r = byId.get(id)!;
    return { id: r.id, filename: r.filename, mime: r.mime, kind: r.kind };
  });
}

/** The agent object's answer, or its refusal thrown as the API's error. */
export function settle<T extends { ok: boolean }>(result: T): Extract<T, { ok: true }> {
  if (!result.ok) {
    const refusal = result as unknown as Refused;
    throw new ApiError(refusal.status, refusal.code, refusal.message, refusal.details);
  }
  return result as Extract<T, { ok: true }>;
}

/** `/api/agents/:id/runs`, mounted beside the agent routes. */
export const agentRunRoutes = new Hono<AppEnv>()
  .post("/:id/runs", operation({
    operationId: "createAgentRun", summary: "Create a direct run; with a message it starts generating", tag: "Runs",
    responses: { 201: ok("The new run", Run) }, notFound: "agent", body: true, objects: true,
    invalid: "an attachment id that is not the organisation's",
    conflict: "agent.busy: the agent is generating (details.run_id names the run); agent.archived: the agent is archived",
  }), pathId("agent"), jsonBody(RunCreate), async (c) => {
    const db = c.get("db");
    const agent = await findAgent(db, c.get("organisationId"), c.req.valid("param").id);
    const body = c.req.valid("json");
    const refs = await attachmentRefs(db, c.get("organisationId"), body.attachments, "attachments");
    const result = settle(await agentObject(c.env, agent.id).createRun(agent.id, {
      kind: "direct",
      title: body.title ?? null,
      ...(body.message !== undefined ? { message: { content: body.message, attachments: refs } } : {}),
    }));
    const found = await findRun(db, c.get("organisationId"), result.run_id);
    return c.json(toRun(found.run, found.cost, { withSnapshot: true }), 201);
  })
  .get("/:id/runs", operation({
    operationId: "listAgentRuns", summary: "The agent's runs, newest first, by kind, routine and archival", tag: "Runs",
    responses: { 200: ok("A page of runs", RunPage) }, notFound: "agent", query: true,
  }), pathId("agent"), query(RunListQuery), async (c) => {
    const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
    return c.json(await listRuns(c.get("db"), agent.id, c.req.valid("query")));
  });

/** An agent's runs, newest first, by kind, routine and archival (`?kind=`, `?schedule_id=`, `?archived=true|false`). */
export async function listRuns(db: Database, agentId: string, query: z.output<typeof RunListQuery>) {
  const { kind, schedule_id, archived } = query;
  const page = listPage(query);
  const rows = await db.select({ run: runs, cost: runCost }).from(runs)
    .where(and(
      eq(runs.agentId, agentId),
      kind ? eq(runs.kind, kind) : undefined,
      schedule_id ? eq(runs.scheduleId, schedule_id) : undefined,
      archived === undefined ? undefined : archived === "true" ? isNotNull(runs.archivedAt) : isNull(runs.archivedAt),
      page.where(runs.createdAt, runs.id),
    ))
    .orderBy(...page.order(runs.createdAt, runs.id))
    .limit(page.limit + 1);
  return page.result(rows.map((r) => ({ ...r, createdAt: r.run.createdAt, id: r.run.id })), (r) => toRun(r.run, r.cost));
}
