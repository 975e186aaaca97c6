import { Hono } from "hono";
import { startCursor } from "../../core/db/group-chat";
import { fromWire } from "../../core/db/rows";
import { agents } from "../../core/db/schema";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation, pathId } from "../http/contract";
import { harnessForWrite, refuseModelBaseUrl, toAgent } from "./agents";
import { Agent, AgentCreate } from "./agents.schema";
import { findGuild } from "./guilds";

/** The model a new agent gets when its body names none. */
export const FALLBACK_MODEL = "gpt-4.1-mini";

/** `POST /api/guilds/:id/agents`, mounted beside the guild routes. */
export const guildAgentRoutes = new Hono<AppEnv>().post(
  "/:id/agents",
  operation({
    operationId: "createAgent",
    summary: "Create an agent in a guild",
    tag: "Agents",
    responses: { 201: ok("The new agent", Agent) },
    notFound: "guild",
    body: true,
    invalid: "a model_base_url the platform will not call; a claude-code task_harness on an agent without coding",
  }),
  pathId("guild"),
  jsonBody(AgentCreate),
  async (c) => {
    const guild = await findGuild(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
    const { task_harness: harnessInput, ...body } = c.req.valid("json");
    refuseModelBaseUrl(body.model_base_url, c.env);
    const harness = harnessForWrite({}, harnessInput, { before: body.coding, after: undefined });
    const row = await c.get("db").transaction(async (tx) => {
      const [created] = await tx
        .insert(agents)
        .values({
          ...(fromWire(body) as typeof agents.$inferInsert),
          ...(harness ? { taskHarness: harness } : {}),
          model: body.model ?? c.env.DEFAULT_MODEL ?? FALLBACK_MODEL,
          guildId: guild.id,
          organisationId: guild.organisationId,
        })
        .returning();
      // A new agent joins the chat from here on: older posts never wake it.
      await startCursor(tx as never, created!.id, guild.id);
      return created!;
    });
    return c.json(toAgent(row), 201);
  },
);
