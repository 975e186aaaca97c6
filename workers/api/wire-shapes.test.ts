import { beforeAll, describe, expect, it } from "vitest";
import type * as z from "zod";
import { runs, taskRuns } from "../../core/db/schema";
import { GroupMessage } from "../../core/validation/group-chat";
import { newAgent, script, settled } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";
import { fileTask, recordStarts, seedTaskGuild, withDb } from "../../test/workerd/tasks";
import { Agent, AgentPage, AgentStatus, Memory } from "./agents.schema";
import { GroupMessagePage } from "./guild-chat.schema";
import { Guild, GuildPage } from "./guilds.schema";
import { Health } from "./health.schema";
import { Organisation } from "./organisation.schema";
import { MessageAccepted, MessageList, PromptReplay, Run, RunPage } from "./runs.schema";
import { Schedule, ScheduleList, SchedulePreview } from "./schedules.schema";
import { Secret, SecretPage } from "./secrets.schema";
import { Task, TaskDetail, TaskMessage, TaskMessagePage, TaskPage, TaskRunPage, TaskSettingsSchema } from "./tasks.schema";
import { TokenCreated, TokenPage } from "./tokens.schema";
import { Usage } from "./usage.schema";

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
};
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Fields of an answer its schema does not name (a strict client would not know them), by path. */
function unnamed(schema: z.ZodType, value: unknown, path = ""): string[] {
  const def = defOf(schema);
  if (["optional", "nullable", "default"].includes(def.type)) return value == null ? [] : unnamed(def.innerType!, value, path);
  if (def.type === "pipe") return unnamed(def.out!, value, path);
  if (def.type === "array" && Array.isArray(value)) return value.flatMap((v, i) => unnamed(def.element!, v, `${path}${i}.`));
  if (def.type !== "object" || !value || typeof value !== "object" || def.catchall) return [];
  return Object.entries(value).flatMap(([key, v]) => (def.shape![key] ? unnamed(def.shape![key]!, v, `${path}${key}.`) : [`${path}${key}`]));
}

/** The answer has the status and exactly the shape its documented schema says. */
function expectShape(res: { status: number; json: unknown }, status: number, schema: z.ZodType) {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  const parsed = schema.safeParse(res.json);
  expect(parsed.success ? [] : parsed.error.issues, JSON.stringify(res.json).slice(0, 300)).toEqual([]);
  expect(unnamed(schema, res.json)).toEqual([]);
}

describe("CONTRACT: answers match the schemas the API document names", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild("Wire shapes")));

  it("CONTRACT: guilds, agents, status and memory", async () => {
    expectShape(await call("GET", `/api/guilds/${guildId}`, { token }), 200, Guild);
    expectShape(await call("GET", "/api/guilds", { token }), 200, GuildPage);
    const agent = await newAgent(token, guildId);
    expectShape(await call("GET", `/api/agents/${agent.id}`, { token }), 200, Agent);
    expectShape(await call("GET", `/api/agents?guild_id=${guildId}`, { token }), 200, AgentPage);
    expectShape(await call("GET", `/api/agents/${agent.id}/status`, { token }), 200, AgentStatus);
    expectShape(await call("PUT", `/api/agents/${agent.id}/memory`, { token, body: { content: "notes" } }), 200, Memory);
  });

  it("CONTRACT: runs, their rows, messages and the prompt replay", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "hello" }, { content: "again" }]);
    const created = await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "hi", title: "Wire" } });
    expectShape(created, 201, Run);
    await settled(token, created.json.id);
    expectShape(await call("GET", `/api/runs/${created.json.id}`, { token }), 200, Run);
    expectShape(await call("GET", `/api/agents/${agent.id}/runs`, { token }), 200, RunPage);
    const rows = await call("GET", `/api/runs/${created.json.id}/messages`, { token });
    expectShape(rows, 200, MessageList);
    const assistant = (rows.json.data as Array<{ seq: number; role: string }>).find((r) => r.role === "assistant")!;
    expectShape(await call("GET", `/api/runs/${created.json.id}/messages/${assistant.seq}/prompt`, { token }), 200, PromptReplay);
    expectShape(await call("POST", `/api/runs/${created.json.id}/messages`, { token, body: { content: "more" } }), 202, MessageAccepted);
    await settled(token, created.json.id);
  });

  it("CONTRACT: routines, the group chat, usage, the organisation, tokens, secrets and health", async () => {
    const agent = await newAgent(token, guildId);
    const schedule = await call("POST", `/api/agents/${agent.id}/schedules`, {
      token,
      body: { description: "Daily", instruction: "Look around", cron: "0 8 * * *", paused: true },
    });
    expectShape(schedule, 201, Schedule);
    expectShape(await call("GET", `/api/agents/${agent.id}/schedules`, { token }), 200, ScheduleList);
    expectShape(await call("GET", `/api/schedules/${schedule.json.id}/preview?count=2`, { token }), 200, SchedulePreview);
    // A guild without agents: the post wakes nobody.
    const quiet = (await call("POST", "/api/guilds", { token, body: { name: "Quiet" } })).json.id;
    expectShape(await call("POST", `/api/guilds/${quiet}/chat`, { token, body: { content: "hello" } }), 201, GroupMessage);
    expectShape(await call("GET", `/api/guilds/${quiet}/chat`, { token }), 200, GroupMessagePage);
    expectShape(await call("GET", "/api/usage?scope=org", { token }), 200, Usage);
    expectShape(await call("GET", `/api/usage?scope=agent&id=${agent.id}`, { token }), 200, Usage);
    expectShape(await call("GET", "/api/organisation", { token }), 200, Organisation);
    expectShape(await call("POST", "/api/tokens", { token, body: { name: "CI", expires_in_days: 1 } }), 201, TokenCreated);
    expectShape(await call("GET", "/api/tokens", { token }), 200, TokenPage);
    expectShape(await call("POST", "/api/secrets", { token, body: { name: "WIRE_SHAPE", value: "v" } }), 201, Secret);
    expectShape(await call("GET", "/api/secrets", { token }), 200, SecretPage);
    expectShape(await call("GET", "/api/health"), 200, Health);
  });

  it("CONTRACT: tasks, their runs and messages, and the task settings", async () => {
    const org = await seedTaskGuild("Wire shapes tasks");
    await recordStarts(org.organisationId, async () => ({ ok: false, status: 503, code: "task.runs_unavailable", message: "not here" }));
    const filed = await fileTask(org);
    expectShape(filed, 201, Task);
    const task = filed.json as { id: string; agent_id: string };
    await withDb(async (db) => {
      const [run] = await db.insert(runs).values({ agentId: task.agent_id, kind: "task" }).returning();
      await db.insert(taskRuns).values({ taskId: task.id, runId: run!.id, outcome: "end_turn", endedAt: new Date(), report: { summary: "x" } });
    });
    expectShape(await call("GET", `/api/tasks/${task.id}`, { token: org.token }), 200, TaskDetail);
    expectShape(await call("GET", `/api/guilds/${org.guildId}/tasks`, { token: org.token }), 200, TaskPage);
    expectShape(await call("GET", `/api/tasks/${task.id}/runs`, { token: org.token }), 200, TaskRunPage);
    expectShape(await call("POST", `/api/tasks/${task.id}/messages`, { token: org.token, body: { content: "hi" } }), 202, TaskMessage);
    expectShape(await call("GET", `/api/tasks/${task.id}/messages`, { token: org.token }), 200, TaskMessagePage);
    expectShape(await call("POST", `/api/tasks/${task.id}/cancel`, { token: org.token }), 200, Task);
    expectShape(await call("GET", "/api/organisation/task-settings", { token: org.token }), 200, TaskSettingsSchema);
  });
});
