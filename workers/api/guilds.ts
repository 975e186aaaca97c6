import { and, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import type { Env } from "../../bindings/env";
import { agentObject } from "../../bindings/objects";
import type { Database } from "../../core/db/client";
import { fromWire, toWire } from "../../core/db/rows";
import { replanDueAfterReenable } from "../../core/db/schedules";
import { agents, guilds } from "../../core/db/schema";
import { isUuid } from "../../core/validation/fields";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation, pathId, query } from "../http/contract";
import { notFound } from "../http/errors";
import { ListQuery } from "../http/page.schema";
import { listPage, organisationRows } from "../http/pagination";
import { forgetAgents } from "./forget-agents";
import { Guild, GuildCreate, GuildPage, GuildPatch } from "./guilds.schema";

export const toGuild = (row: typeof guilds.$inferSelect) => toWire(row);

/** The caller's guild with this id, or 404 (also for another organisation's guild). */
export async function findGuild(db: Database, organisationId: string, id: string) {
  if (!isUuid(id)) throw notFound("guild");
  const [row] = await db
    .select()
    .from(guilds)
    .where(and(eq(guilds.id, id), eq(guilds.organisationId, organisationId)))
    .limit(1);
  if (!row) throw notFound("guild");
  return row;
}

/**
 * The guild's routines switch: off disarms every agent's schedule deadline (SCHED-007);
 * on replans the unpaused schedules that are already due from now (SCHED-012) and re-arms.
 */
async function switchRoutines(db: Database, env: Env, guildId: string, enabled: boolean): Promise<void> {
  if (enabled) await replanDueAfterReenable(db, guildId, new Date(), Math.random);
  const members = await db.select({ id: agents.id }).from(agents).where(eq(agents.guildId, guildId));
  // A few objects at a time: a large guild must not wake every agent at once.
  for (let i = 0; i < members.length; i += REARM_BATCH) {
    await Promise.all(members.slice(i, i + REARM_BATCH).map((a) => agentObject(env, a.id).refreshSchedules(a.id)));
  }
}

const REARM_BATCH = 25;

export const guildRoutes = new Hono<AppEnv>()
  .post(
    "/",
    operation({
      operationId: "createGuild",
      summary: "Create a guild",
      tag: "Guilds",
      responses: { 201: ok("The new guild", Guild) },
      body: true,
    }),
    jsonBody(GuildCreate),
    async (c) => {
      const body = c.req.valid("json");
      const [row] = await c
        .get("db")
        .insert(guilds)
        .values({ ...(fromWire(body) as typeof guilds.$inferInsert), organisationId: c.get("organisationId") })
        .returning();
      return c.json(toGuild(row!), 201);
    },
  )
  .get(
    "/",
    operation({
      operationId: "listGuilds",
      summary: "List the organisation's guilds, newest first",
      tag: "Guilds",
      responses: { 200: ok("A page of guilds", GuildPage) },
      query: true,
    }),
    query(ListQuery),
    async (c) => {
      const page = listPage(c.req.valid("query"));
      const rows = await organisationRows(c.get("db"), guilds, c.get("organisationId"), page);
      return c.json(page.result(rows, toGuild));
    },
  )
  .get(
    "/:id",
    operation({
      operationId: "getGuild",
      summary: "Read a guild",
      tag: "Guilds",
      responses: { 200: ok("The guild", Guild) },
      notFound: "guild",
    }),
    pathId("guild"),
    async (c) => {
      return c.json(toGuild(await findGuild(c.get("db"), c.get("organisationId"), c.req.valid("param").id)));
    },
  )
  .patch(
    "/:id",
    operation({
      operationId: "updateGuild",
      summary: "Change a guild; switching routines off disarms every schedule, on replans them from now",
      tag: "Guilds",
      responses: { 200: ok("The changed guild", Guild) },
      notFound: "guild",
      body: true,
    }),
    pathId("guild"),
    jsonBody(GuildPatch),
    async (c) => {
      const { id } = c.req.valid("param");
      const before = await findGuild(c.get("db"), c.get("organisationId"), id);
      const body = c.req.valid("json");
      const [row] = await c
        .get("db")
        .update(guilds)
        .set({ ...fromWire(body), updatedAt: sql`now()` })
        .where(and(eq(guilds.id, id), eq(guilds.organisationId, c.get("organisationId"))))
        .returning();
      if (!row) throw notFound("guild");
      if (body.routines_enabled !== undefined && body.routines_enabled !== before.routinesEnabled) {
        await switchRoutines(c.get("db"), c.env, id, body.routines_enabled);
      }
      return c.json(toGuild(row));
    },
  )
  .delete(
    "/:id",
    operation({
      operationId: "deleteGuild",
      summary: "Delete a guild with its agents, runs and messages",
      tag: "Guilds",
      responses: { 204: ok("Deleted") },
      notFound: "guild",
      objects: true,
      conflict: "agent.busy: one of the guild's agents is generating; cancel its run first",
    }),
    pathId("guild"),
    async (c) => {
      const { id } = await findGuild(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const members = await c.get("db").select({ id: agents.id }).from(agents).where(eq(agents.guildId, id));
      await forgetAgents(
        c.env,
        members.map((a) => a.id),
      );
      // Cascades to the guild's agents, their runs and messages, and its counter row.
      const deleted = await c
        .get("db")
        .delete(guilds)
        .where(and(eq(guilds.id, id), eq(guilds.organisationId, c.get("organisationId"))))
        .returning({ id: guilds.id });
      if (deleted.length === 0) throw notFound("guild");
      return c.body(null, 204);
    },
  );
