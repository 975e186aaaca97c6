import { and, eq, ilike, isNotNull, isNull, sql } from "drizzle-orm";
import type * as z from "zod";
import type { Database } from "../../core/db/client";
import { agents, runs } from "../../core/db/schema";
import { toRun } from "../../core/runs/wire";
import { isUuid } from "../../core/validation/fields";
import { notFound } from "../http/errors";
import { listPage } from "../http/pagination";
import { containsPattern } from "../http/query.schema";
import type { RunListQuery } from "./runs.schema";

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
