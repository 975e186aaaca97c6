import { and, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { agentObject } from "../../bindings/objects";
import { BoundedMap } from "../../core/cache/bounded-map";
import { readMemory, writeMemory } from "../../core/db/memory";
import { fromWire, toWire } from "../../core/db/rows";
import { agents } from "../../core/db/schema";
import { modelBaseUrlIssue } from "../../core/providers/provider";
import { settingsDestroyBox } from "../../core/sandbox/metadata";
import { harnessIssues, harnessToStore, type TaskHarnessPatch, taskHarness } from "../../core/tasks/harness";
import { isUuid } from "../../core/validation/fields";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation, pathId, query } from "../http/contract";
import { notFound, validationFailed } from "../http/errors";
import { listPage } from "../http/pagination";
import { forgetViewAccess } from "../views/view-access";
import { Agent, AgentListQuery, AgentPage, AgentPatch, AgentStatus, Memory, MemoryReplace } from "./agents.schema";
import { forgetAgents } from "./forget-agents";

/** An agent on the wire: its stored harness answered as the effective one, defaults filled in. */
export const toAgent = (row: typeof agents.$inferSelect) => ({ ...toWire(row), task_harness: taskHarness(row.taskHarness) });

/** The caller's agent with this id, or 404 (also for another organisation's agent). */
/** Agents this isolate has seen belong to an organisation; an agent never changes organisation. */
const agentOwners = new BoundedMap<string, string>(10_000);

/**
 * The caller's agent id, or 404: like findAgent, but an agent this isolate already found in
 * the caller's organisation is not asked for again (opening a run saves that round trip). A
 * deleted agent still passes here; its object then refuses with agent.not_found.
 */
export async function ownedAgentId(db: AppEnv["Variables"]["db"], organisationId: string, id: string): Promise<string> {
  if (agentOwners.get(id) === organisationId) return id;
  const agent = await findAgent(db, organisationId, id);
  agentOwners.set(agent.id, organisationId);
  return agent.id;
}

export async function findAgent(db: AppEnv["Variables"]["db"], organisationId: string, id: string) {
  if (!isUuid(id)) throw notFound("agent");
  const [row] = await db
    .select()
    .from(agents)
    .where(and(eq(agents.id, id), eq(agents.organisationId, organisationId)))
    .limit(1);
  if (!row) throw notFound("agent");
  return row;
}

/**
 * 422 for a model_base_url the platform will not call (loopback, private, link-local or
 * metadata addresses unless the operator allows them, credentials in the URL). A custom
 * URL without model_api_key_secret is accepted: the key may be named in a later change,
 * and until then each generation stops with `provider.key_required`.
 */
export function refuseModelBaseUrl(baseUrl: string | null | undefined, env: AppEnv["Bindings"]) {
  const issue = modelBaseUrlIssue(baseUrl, env);
  if (issue) throw validationFailed([issue]);
}

/**
 * The harness to store for a write, or 422 naming the bad field: the body's harness merged
 * over the stored one (null: the defaults), which must suit the agent's coding flag after the
 * write. Undefined when the write names no harness (the stored one stays); checked only when
 * it names a harness or the coding flag.
 */
export function harnessForWrite(
  stored: unknown,
  patch: TaskHarnessPatch | null | undefined,
  coding: { before: boolean; after: boolean | undefined },
): TaskHarnessPatch | undefined {
  if (patch === undefined && coding.after === undefined) return undefined;
  const merged = harnessToStore(stored, patch);
  const issues = harnessIssues(merged, { coding: coding.after ?? coding.before });
  if (issues.length > 0) throw validationFailed(issues);
  return patch === undefined ? undefined : merged;
}

const memoryOf = async (db: AppEnv["Variables"]["db"], agent: typeof agents.$inferSelect) => {
  const memory = await readMemory(db, agent.id);
  return { agent_id: agent.id, enabled: agent.memory, content: memory.content, updated_at: memory.updatedAt?.toISOString() ?? null };
};

export const agentRoutes = new Hono<AppEnv>()
  .get(
    "/",
    operation({
      operationId: "listAgents",
      summary: "List the organisation's agents, newest first (filter with ?guild_id=)",
      tag: "Agents",
      responses: { 200: ok("A page of agents", AgentPage) },
      query: true,
    }),
    query(AgentListQuery),
    async (c) => {
      const { guild_id: guildId, ...paging } = c.req.valid("query");
      const page = listPage(paging);
      const rows = await c
        .get("db")
        .select()
        .from(agents)
        .where(
          and(eq(agents.organisationId, c.get("organisationId")), guildId ? eq(agents.guildId, guildId) : undefined, page.where(agents.createdAt, agents.id)),
        )
        .orderBy(...page.order(agents.createdAt, agents.id))
        .limit(page.limit + 1);
      return c.json(page.result(rows, toAgent));
    },
  )
  .get(
    "/:id",
    operation({
      operationId: "getAgent",
      summary: "Read an agent",
      tag: "Agents",
      responses: { 200: ok("The agent", Agent) },
      notFound: "agent",
    }),
    pathId("agent"),
    async (c) => {
      return c.json(toAgent(await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id)));
    },
  )
  .patch(
    "/:id",
    operation({
      operationId: "updateAgent",
      summary: "Change an agent's configuration (new runs only)",
      tag: "Agents",
      responses: { 200: ok("The changed agent", Agent) },
      notFound: "agent",
      body: true,
      invalid: "a model_base_url the platform will not call; a claude-code task_harness on an agent without coding",
    }),
    pathId("agent"),
    jsonBody(AgentPatch),
    async (c) => {
      const { id } = c.req.valid("param");
      const before = await findAgent(c.get("db"), c.get("organisationId"), id);
      const { task_harness: harnessPatch, ...body } = c.req.valid("json");
      refuseModelBaseUrl(body.model_base_url, c.env);
      const harness = harnessForWrite(before.taskHarness, harnessPatch, { before: before.coding, after: body.coding });
      const [row] = await c
        .get("db")
        .update(agents)
        .set({ ...fromWire(body), ...(harness ? { taskHarness: harness } : {}), updatedAt: sql`now()` })
        .where(and(eq(agents.id, id), eq(agents.organisationId, c.get("organisationId"))))
        .returning();
      if (!row) throw notFound("agent");
      // Its views under tickets answer the new settings at once in this isolate (others within the view-access bound).
      forgetViewAccess({ agentId: row.id });
      // SBX-022: another box, or another browser language, for the idle box.
      const flags = (r: typeof row) => ({ browser: r.browser, coding: r.coding, browser_language: r.browserLanguage });
      if (settingsDestroyBox(flags(before), flags(row))) await agentObject(c.env, row.id).sandboxSettingsChanged();
      return c.json(toAgent(row));
    },
  )
  .get(
    "/:id/status",
    operation({
      operationId: "getAgentStatus",
      summary: "Whether the agent generates, and its pending deadlines",
      tag: "Agents",
      responses: { 200: ok("The agent's status", AgentStatus) },
      notFound: "agent",
    }),
    pathId("agent"),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const object = agentObject(c.env, agent.id);
      const [generation, deadlines] = await Promise.all([object.generationState(), object.deadlines()]);
      return c.json({ agent_id: agent.id, ...generation, deadlines });
    },
  )
  .get(
    "/:id/memory",
    operation({
      operationId: "getAgentMemory",
      summary: "The agent's Memory document (the opening <memory> of its new runs)",
      tag: "Agents",
      responses: { 200: ok("The Memory document", Memory) },
      notFound: "agent",
    }),
    pathId("agent"),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      return c.json(await memoryOf(c.get("db"), agent));
    },
  )
  .put(
    "/:id/memory",
    operation({
      operationId: "replaceAgentMemory",
      summary: "Replace the agent's Memory document; new runs start with it",
      tag: "Agents",
      responses: { 200: ok("The Memory document", Memory) },
      notFound: "agent",
      body: true,
    }),
    pathId("agent"),
    jsonBody(MemoryReplace),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      await writeMemory(c.get("db"), agent.id, c.req.valid("json").content);
      return c.json(await memoryOf(c.get("db"), agent));
    },
  )
  .delete(
    "/:id",
    operation({
      operationId: "deleteAgent",
      summary: "Delete an agent with its runs and messages",
      tag: "Agents",
      responses: { 204: ok("Deleted") },
      notFound: "agent",
      objects: true,
      conflict: "agent.busy: the agent is generating; cancel its run first",
    }),
    pathId("agent"),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const id = agent.id;
      // The object goes first, so no deadline of a deleted agent fires afterwards.
      await forgetAgents(c.env, [id]);
      // Cascades to runs, messages, schedules, scripts and the agent's counter row.
      const deleted = await c
        .get("db")
        .delete(agents)
        .where(and(eq(agents.id, id), eq(agents.organisationId, c.get("organisationId"))))
        .returning({ id: agents.id });
      if (deleted.length === 0) throw notFound("agent");
      return c.body(null, 204);
    },
  );
