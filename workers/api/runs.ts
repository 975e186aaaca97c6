import { and, eq, ilike, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { Hono } from "hono";
import type * as z from "zod";
import { agentObject } from "../../bindings/objects";
import type { Refused } from "../../bindings/outcome";
import type { Database } from "../../core/db/client";
import { agents, attachments, runs } from "../../core/db/schema";
import type { AttachmentRef } from "../../core/projection/types";
import { toRun } from "../../core/runs/wire";
import { isUuid } from "../../core/validation/fields";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation, pathId, query } from "../http/contract";
import { ApiError, notFound, validationFailed } from "../http/errors";
import { listPage } from "../http/pagination";
import { containsPattern } from "../http/query.schema";
import { findAgent, ownedAgentId } from "./agents";
import { Run, RunCreate, RunListQuery, RunPage } from "./runs.schema";

/** Cost of a run: the sum of its priced assistant rows. */
// Spelled out: drizzle drops table qualifiers from columns in a single-table select.
const runCost = sql<string>`coalesce((select sum(m.cost_usd) from messages m where m.run_id = "runs"."id"), 0)::text`;

/** The caller's run with this id and its agent's scope, or 404. */
export async function findRun(db: Database, organisationId: string, id: string) {
  if (!isUuid(id)) throw notFound("run");
  const [found] = await db
    .select({ run: runs, cost: runCost, guildId: agents.guildId })
    .from(runs)
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .where(and(eq(runs.id, id), eq(agents.organisationId, organisationId)))
    .limit(1);
  if (!found) throw notFound("run");
  return found;
}

/** Attachment ids of the caller's organisation as refs for metadata.attachments (ATT-001, OP-ATT-5). */
export async function attachmentRefs(db: Database, organisationId: string, ids: string[], field: string): Promise<AttachmentRef[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(attachments)
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
  .post(
    "/:id/runs",
    operation({
      operationId: "createAgentRun",
      summary: "Create a direct run; with a message it starts generating",
      tag: "Runs",
      responses: { 201: ok("The new run", Run) },
      notFound: "agent",
      body: true,
      objects: true,
      invalid: "an attachment id that is not the organisation's",
      conflict: "agent.busy: the agent is generating (details.run_id names the run); agent.archived: the agent is archived",
    }),
    pathId("agent"),
    jsonBody(RunCreate),
    async (c) => {
      const db = c.get("db");
      const agentId = await ownedAgentId(db, c.get("organisationId"), c.req.valid("param").id);
      const body = c.req.valid("json");
      const refs = await attachmentRefs(db, c.get("organisationId"), body.attachments, "attachments");
      const result = settle(
        await agentObject(c.env, agentId).createRun(agentId, {
          kind: "direct",
          title: body.title ?? null,
          ...(body.message !== undefined ? { message: { content: body.message, attachments: refs } } : {}),
        }),
      );
      return c.body(result.run, 201, { "content-type": "application/json" });
    },
  )
  .get(
    "/:id/runs",
    operation({
      operationId: "listAgentRuns",
      summary: "The agent's runs, newest first, by kind, routine and archival",
      tag: "Runs",
      responses: { 200: ok("A page of runs", RunPage) },
      notFound: "agent",
      query: true,
    }),
    pathId("agent"),
    query(RunListQuery),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      return c.json(await listRuns(c.get("db"), agent.id, c.req.valid("query")));
    },
  );

/**
 * An agent's runs, newest first, by kind, status, routine and archival (`?kind=`, `?status=`,
 * `?schedule_id=`, `?archived=true|false`), and by title (`?q=`, case-insensitive, anywhere
 * in the title; `%` and `_` match themselves).
 */
export async function listRuns(db: Database, agentId: string, query: z.output<typeof RunListQuery>) {
  const { kind, status, schedule_id, archived, q } = query;
  const page = listPage(query);
  const rows = await db
    .select({ run: runs, cost: runCost })
    .from(runs)
    .where(
      and(
        eq(runs.agentId, agentId),
        kind ? eq(runs.kind, kind) : undefined,
        status ? eq(runs.status, status) : undefined,
        q ? ilike(runs.title, containsPattern(q)) : undefined,
        schedule_id ? eq(runs.scheduleId, schedule_id) : undefined,
        archived === undefined ? undefined : archived === "true" ? isNotNull(runs.archivedAt) : isNull(runs.archivedAt),
        page.where(runs.createdAt, runs.id),
      ),
    )
    .orderBy(...page.order(runs.createdAt, runs.id))
    .limit(page.limit + 1);
  return page.result(
    rows.map((r) => ({ ...r, createdAt: r.run.createdAt, id: r.run.id })),
    (r) => toRun(r.run, r.cost),
  );
}
