import { and, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import * as z from "zod";
import { fromWire, toWire } from "../../core/db/rows";
import { agents } from "../../core/db/schema";
import { Agent, AgentCreate, AgentPatch } from "../../core/validation/agent";
import { isUuid } from "../../core/validation/fields";
import { readBody } from "../body";
import type { AppEnv } from "../context";
import { agentObject } from "../../bindings/objects";
import { forgetAgents } from "../forget-agents";
import { readMemory, writeMemory } from "../../core/db/memory";
import { startCursor } from "../../core/db/group-chat";
import { MEMORY_MAX } from "../../core/tools/memory";
import { notFound, validationFailed } from "../errors";
import { modelBaseUrlIssue } from "../../core/providers/provider";
import type { RouteDoc } from "../openapi";
import { listPage } from "../pagination";
import { findGuild } from "./guilds";

/** The model a new agent gets when its body names none. */
export const FALLBACK_MODEL = "gpt-4.1-mini";

const MemoryBody = z.strictObject({ content: z.string().max(MEMORY_MAX) });
const Memory = z.object({ agent_id: z.uuid(), enabled: z.boolean(), content: z.string(), updated_at: z.iso.datetime().nullable() });

const AgentStatus = z.object({
  agent_id: z.uuid(),
  generating: z.boolean(),
  run_id: z.uuid().optional(),
  generation: z.int().optional(),
  started_at: z.iso.datetime().optional(),
  lease_until: z.iso.datetime().optional(),
  lease_expired: z.boolean().optional(),
  deadlines: z.array(z.object({ name: z.string(), kind: z.string(), due_at: z.iso.datetime(), version: z.int(), attempts: z.int() })),
});

export const toAgent = (row: typeof agents.$inferSelect) => toWire(row);

/** The caller's agent with this id, or 404 (also for another organisation's agent). */
export async function findAgent(db: AppEnv["Variables"]["db"], organisationId: string, id: string) {
  if (!isUuid(id)) throw notFound("agent");
  const [row] = await db.select().from(agents)
    .where(and(eq(agents.id, id), eq(agents.organisationId, organisationId))).limit(1);
  if (!row) throw notFound("agent");
  return row;
}

/**
 * 422 for a model_base_url the platform will not call (loopback, private, link-local or
 * metadata addresses unless the operator allows them, credentials in the URL). A custom
 * URL without model_api_key_secret is accepted: the key may be named in a later change,
 * and until then each generation stops with `provider.key_required`.
 */
function refuseModelBaseUrl(baseUrl: string | null | undefined, env: AppEnv["Bindings"]) {
  const issue = modelBaseUrlIssue(baseUrl, env);
  if (issue) throw validationFailed([issue]);
}

/** `POST /api/guilds/:id/agents`, mounted beside the guild routes. */
export const guildAgentRoutes = new Hono<AppEnv>().post("/:id/agents", async (c) => {
  const guild = await findGuild(c.get("db"), c.get("organisationId"), c.req.param("id"));
  const body = await readBody(c, AgentCreate);
  refuseModelBaseUrl(body.model_base_url, c.env);
  const row = await c.get("db").transaction(async (tx) => {
    const [created] = await tx.insert(agents).values({
      ...(fromWire(body) as typeof agents.$inferInsert),
      model: body.model ?? c.env.DEFAULT_MODEL ?? FALLBACK_MODEL,
      guildId: guild.id,
      organisationId: guild.organisationId,
    }).returning();
    // A new agent joins the chat from here on: older posts never wake it.
    await startCursor(tx as never, created!.id, guild.id);
    return created!;
  });
  return c.json(toAgent(row), 201);
});

export const agentRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const page = listPage(c.req.query(), { guild_id: z.uuid().optional() });
    const guildId = page.params.guild_id as string | undefined;
    const rows = await c.get("db").select().from(agents)
      .where(and(
        eq(agents.organisationId, c.get("organisationId")),
        guildId ? eq(agents.guildId, guildId) : undefined,
        page.where(agents.createdAt, agents.id),
      ))
      .orderBy(...page.order(agents.createdAt, agents.id))
      .limit(page.limit + 1);
    return c.json(page.result(rows, toAgent));
  })
  .get("/:id", async (c) => {
    return c.json(toAgent(await findAgent(c.get("db"), c.get("organisationId"), c.req.param("id"))));
  })
  .patch("/:id", async (c) => {
    const id = c.req.param("id");
    await findAgent(c.get("db"), c.get("organisationId"), id);
    const body = await readBody(c, AgentPatch);
    refuseModelBaseUrl(body.model_base_url, c.env);
    const [row] = await c.get("db").update(agents)
      .set({ ...fromWire(body), updatedAt: sql`now()` })
      .where(and(eq(agents.id, id), eq(agents.organisationId, c.get("organisationId"))))
      .returning();
    if (!row) throw notFound("agent");
    return c.json(toAgent(row));
  })
  .get("/:id/status", async (c) => {
    const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const object = agentObject(c.env, agent.id);
    const [generation, deadlines] = await Promise.all([object.generationState(), object.deadlines()]);
    return c.json({ agent_id: agent.id, ...generation, deadlines });
  })
  .get("/:id/memory", async (c) => {
    const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const memory = await readMemory(c.get("db"), agent.id);
    return c.json({ agent_id: agent.id, enabled: agent.memory, content: memory.content, updated_at: memory.updatedAt?.toISOString() ?? null });
  })
  .put("/:id/memory", async (c) => {
    const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const body = await readBody(c, MemoryBody);
    await writeMemory(c.get("db"), agent.id, body.content);
    const memory = await readMemory(c.get("db"), agent.id);
    return c.json({ agent_id: agent.id, enabled: agent.memory, content: memory.content, updated_at: memory.updatedAt?.toISOString() ?? null });
  })
  .delete("/:id", async (c) => {
    const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const id = agent.id;
    // The object goes first, so no deadline of a deleted agent fires afterwards.
    await forgetAgents(c.env, [id]);
    // Cascades to runs, messages, schedules, scripts and the agent's counter row.
    const deleted = await c.get("db").delete(agents)
      .where(and(eq(agents.id, id), eq(agents.organisationId, c.get("organisationId"))))
      .returning({ id: agents.id });
    if (deleted.length === 0) throw notFound("agent");
    return c.body(null, 204);
  });

export const agentDocs: RouteDoc[] = [
  { method: "post", path: "/api/guilds/{id}/agents", summary: "Create an agent in a guild", tag: "Agents", body: AgentCreate, response: Agent, status: 201 },
  { method: "get", path: "/api/agents", summary: "List the organisation's agents, newest first (filter with ?guild_id=)", tag: "Agents", response: Agent, list: true },
  { method: "get", path: "/api/agents/{id}", summary: "Read an agent", tag: "Agents", response: Agent },
  { method: "patch", path: "/api/agents/{id}", summary: "Change an agent's configuration (new runs only)", tag: "Agents", body: AgentPatch, response: Agent },
  { method: "get", path: "/api/agents/{id}/status", summary: "Whether the agent generates, and its pending deadlines", tag: "Agents", response: AgentStatus },
  { method: "get", path: "/api/agents/{id}/memory", summary: "The agent's Memory document (the opening <memory> of its new runs)", tag: "Agents", response: Memory },
  { method: "put", path: "/api/agents/{id}/memory", summary: "Replace the agent's Memory document; new runs start with it", tag: "Agents", body: MemoryBody, response: Memory },
  { method: "delete", path: "/api/agents/{id}", summary: "Delete an agent with its runs and messages (409 while it generates)", tag: "Agents", status: 204 },
];
