import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import * as z from "zod";
import type { Env } from "../../bindings/env";
import type { AnyDatabase } from "../../core/db/client";
import { agents, guilds } from "../../core/db/schema";
import { UUID_PATTERN } from "../../core/validation/fields";
import type { AppEnv } from "../http/context";
import { failure, jsonBody, ok, operation, pathId } from "../http/contract";
import { ApiError, notFound } from "../http/errors";
import type { grantCreate } from "./grants.schema";

/** What a grant names: one guild or one agent (the body's schema allows exactly one). */
export type GrantTarget = { guildId: string; agentId?: undefined } | { agentId: string; guildId?: undefined };

/**
 * The guild or agent a grant body names, once it is known to be the organisation's: a
 * secret's and a connection's grants reach only their own tenant.
 *
 * @example await grantTarget(db, orgId, { agent_id }) // { agentId } or 404 agent.not_found
 */
export async function grantTarget(
  db: AnyDatabase,
  organisationId: string,
  body: { guild_id?: string | null | undefined; agent_id?: string | null | undefined },
): Promise<GrantTarget> {
  const { guild_id: guildId, agent_id: agentId } = body;
  const target = guildId
    ? await db
        .select({ id: guilds.id })
        .from(guilds)
        .where(and(eq(guilds.id, guildId), eq(guilds.organisationId, organisationId)))
    : await db
        .select({ id: agents.id })
        .from(agents)
        .where(and(eq(agents.id, agentId!), eq(agents.organisationId, organisationId)));
  if (target.length === 0) throw notFound(guildId ? "guild" : "agent");
  return guildId ? { guildId } : { agentId: agentId! };
}

type Db = AppEnv["Variables"]["db"];

/** A resource that is granted to guilds and agents (a secret, an MCP connection), as its grant routes use it. */
export interface Grantable<Row> {
  /** The resource as its ids and errors name it: `secret`, `mcp_connection`. */
  resource: string;
  /** Its grants as their ids and errors name them: `secret_grant`, `mcp_grant`. */
  grant: string;
  /** The resource in the documentation's and the errors' sentences: `secret`, `connection`. */
  noun: string;
  tag: Parameters<typeof operation>[0]["tag"];
  operationIds: { grant: string; revoke: string };
  /** The resource with its grants, as both routes answer it. */
  schema: z.ZodType;
  /** The grant body (grants.schema.ts grantCreate). */
  body: ReturnType<typeof grantCreate>;
  /** The caller's resource with this id, or 404. */
  find(db: Db, organisationId: string, id: string): Promise<Row>;
  /** Grants the resource to the target; false when it is granted to that guild or agent already. */
  add(env: Env, db: Db, row: Row, target: GrantTarget): Promise<boolean>;
  /** Revokes one grant of the resource; false when it has no such grant. */
  remove(env: Env, db: Db, row: Row, grantId: string): Promise<boolean>;
  /** The resource with its grants as the API returns it. */
  wire(db: Db, row: Row): Promise<unknown>;
}

/**
 * `POST /:id/grants` and `DELETE /:id/grants/:grant_id` of a grantable resource, mounted on
 * its routes: the target must be the caller's organisation's guild or agent, a second grant
 * to the same target is 409 `<grant>.exists`, a grant the resource does not have is 404.
 */
export function grantRoutes<Row>(g: Grantable<Row>) {
  return new Hono<AppEnv>()
    .post(
      "/:id/grants",
      operation({
        operationId: g.operationIds.grant,
        summary: `Grant a ${g.noun} to a guild or an agent of the organisation`,
        tag: g.tag,
        responses: { 201: ok(`The ${g.noun} with its grants`, g.schema) },
        errors: { 404: failure(`No such ${g.noun}, guild or agent in the caller's organisation (${g.resource}.not_found, guild.not_found, agent.not_found)`) },
        body: true,
        conflict: `${g.grant}.exists: the ${g.noun} is already granted to that guild or agent`,
      }),
      pathId(g.resource),
      jsonBody(g.body),
      async (c) => {
        const db = c.get("db");
        const organisationId = c.get("organisationId");
        const row = await g.find(db, organisationId, c.req.valid("param").id);
        const target = await grantTarget(db, organisationId, c.req.valid("json"));
        if (!(await g.add(c.env, db, row, target))) {
          throw new ApiError(409, `${g.grant}.exists`, `The ${g.noun} is already granted to that ${target.guildId ? "guild" : "agent"}`);
        }
        return c.json(await g.wire(db, row), 201);
      },
    )
    .delete(
      "/:id/grants/:grant_id",
      operation({
        operationId: g.operationIds.revoke,
        summary: `Revoke one grant of a ${g.noun}`,
        tag: g.tag,
        responses: { 200: ok(`The ${g.noun} with its remaining grants`, g.schema) },
        errors: { 404: failure(`No such ${g.noun} in the caller's organisation, or no such grant of it (${g.resource}.not_found, ${g.grant}.not_found)`) },
      }),
      pathId(g.resource, { grant_id: { schema: z.string().regex(UUID_PATTERN).describe("The grant's id"), resource: g.grant } }),
      async (c) => {
        const db = c.get("db");
        const { id, grant_id: grantId } = c.req.valid("param");
        const row = await g.find(db, c.get("organisationId"), id);
        if (!(await g.remove(c.env, db, row, grantId))) throw notFound(g.grant);
        return c.json(await g.wire(db, row));
      },
    );
}
