import { Hono } from "hono";
import { agentObject } from "../../bindings/objects";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation, pathId, query } from "../http/contract";
import { settle } from "../http/errors";
import { findAgent, ownedAgentId } from "./agents";
import { attachmentRefs } from "./attachment-refs";
import { listRuns } from "./run-queries";
import { Run, RunCreate, RunListQuery, RunPage } from "./runs.schema";

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
