import { and, asc, eq, gt } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { agentObject, taskObject } from "../../bindings/objects";
import { replayPrompt } from "../../core/db/prompt-replay";
import { messages } from "../../core/db/schema";
import { toWireRow } from "../../core/db/transcript";
import type { RunSnapshot } from "../../core/runs/snapshot";
import { toRun } from "../../core/runs/wire";
import type { AppEnv } from "../http/context";
import { eventStream, failure, jsonBody, lastEventId, ok, operation, pathId, query } from "../http/contract";
import { ApiError, notFound, settle, validationFailed } from "../http/errors";
import { MAX_SEQ, queryInt, resumePoint, streamQuery } from "../http/query.schema";
import { attachmentRefs } from "./attachment-refs";
import { RunEvent } from "./events.schema";
import { harnessPrompt } from "./harness-prompt";
import { findRun } from "./run-queries";
import { MessageAccepted, MessageCreate, MessageList, MessagesQuery, PromptReplay, Run } from "./runs.schema";

const runOp = (op: Omit<Parameters<typeof operation>[0], "tag" | "notFound">) => operation({ tag: "Runs", notFound: "run", ...op });

/** The task whose object drives a task run (its rows, messages and stop), or undefined for the agent's own runs. */
function taskOf(run: { kind: string; metadata: unknown }): string | undefined {
  const taskId = run.kind === "task" ? (run.metadata as { task_id?: unknown } | null)?.task_id : undefined;
  return typeof taskId === "string" ? taskId : undefined;
}

/** A task run takes messages and stops through its task, never through the agent's object (which holds no such run). */
function refuseTaskRun(run: { kind: string; metadata: unknown }, action: string): void {
  const taskId = taskOf(run);
  if (taskId) throw new ApiError(409, "run.task_run", `A task run ${action} through its task: /api/tasks/${taskId}`, { task_id: taskId });
}

/** `/api/runs/:id/...`: one run's transcript, messages, cancel, resume, events, prompt replay. */
export const runRoutes = new Hono<AppEnv>()
  .get(
    "/:id",
    runOp({
      operationId: "getRun",
      summary: "A run: status, whether it generates, snapshot summary, errors, metadata, cost",
      responses: { 200: ok("The run", Run) },
      objects: true,
    }),
    pathId("run"),
    async (c) => {
      const found = await findRun(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const state = await agentObject(c.env, found.run.agentId).generationState();
      const generating = state.generating && state.run_id === found.run.id;
      // The object writes a generation's outcome before it frees the lock: once it says
      // "not generating", a fresh read shows that outcome, never a half-finished state.
      const { run, cost } = generating ? found : await findRun(c.get("db"), c.get("organisationId"), found.run.id);
      return c.json(toRun(run, cost, { generating, withSnapshot: true }));
    },
  )
  .get(
    "/:id/messages",
    runOp({
      operationId: "listRunMessages",
      summary: "The run's rows in seq order, after a seq",
      responses: { 200: ok("The rows", MessageList) },
      query: true,
    }),
    pathId("run"),
    query(MessagesQuery),
    async (c) => {
      const { run } = await findRun(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const { after_seq, limit } = c.req.valid("query");
      const rows = await c
        .get("db")
        .select()
        .from(messages)
        .where(and(eq(messages.runId, run.id), gt(messages.seq, after_seq)))
        .orderBy(asc(messages.seq))
        .limit(limit);
      return c.json({ data: rows.map(toWireRow) });
    },
  )
  .post(
    "/:id/messages",
    runOp({
      operationId: "postRunMessage",
      summary: "Send a message to a direct run; 202 and a generation starts",
      responses: { 202: ok("The user row and the generation it opened", MessageAccepted) },
      body: true,
      objects: true,
      invalid: "an attachment id that is not the organisation's",
      conflict:
        "agent.busy: the agent is generating; run.not_accepting_messages: the run is archived, ended or completed (resume it first), or a group or schedule run not resumed (details.status, details.kind); run.continued: the run continued in a newer one (details.latest_run_id); run.task_run: a task's run takes messages through its task (details.task_id)",
    }),
    pathId("run"),
    jsonBody(MessageCreate),
    async (c) => {
      const db = c.get("db");
      const { run } = await findRun(db, c.get("organisationId"), c.req.valid("param").id);
      const body = c.req.valid("json");
      refuseTaskRun(run, "takes messages");
      const refs = await attachmentRefs(db, c.get("organisationId"), body.attachments, "attachments");
      const result = settle(await agentObject(c.env, run.agentId).postMessage(run.id, { content: body.content, attachments: refs }));
      return c.json({ run_id: run.id, seq: result.seq, generation: result.generation }, 202);
    },
  )
  .post(
    "/:id/cancel",
    runOp({
      operationId: "cancelRun",
      summary: "Cancel the run's generation",
      responses: { 200: ok("The run, no longer generating", Run) },
      objects: true,
      conflict: "run.not_generating: the run has no generation to cancel; run.task_run: a task's run stops through its task (details.task_id)",
    }),
    pathId("run"),
    async (c) => {
      const { run } = await findRun(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      refuseTaskRun(run, "is cancelled");
      settle(await agentObject(c.env, run.agentId).cancel(run.id));
      const after = await findRun(c.get("db"), c.get("organisationId"), run.id);
      return c.json(toRun(after.run, after.cost, { generating: false }));
    },
  )
  .post(
    "/:id/resume",
    runOp({
      operationId: "resumeRun",
      summary: "Reopen a completed run",
      responses: { 200: ok("The reopened run", Run) },
      objects: true,
      conflict:
        "run.not_resumable: not completed, archived or ended for good (details.reason); run.continued: the run continued in a newer one (details.latest_run_id); run.task_run: a task's run continues through its task (details.task_id)",
    }),
    pathId("run"),
    async (c) => {
      const { run } = await findRun(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      refuseTaskRun(run, "is continued");
      settle(await agentObject(c.env, run.agentId).resume(run.id));
      const after = await findRun(c.get("db"), c.get("organisationId"), run.id);
      return c.json(toRun(after.run, after.cost));
    },
  )
  .post(
    "/:id/archive",
    runOp({
      operationId: "archiveRun",
      summary: "Archive the run: it refuses messages and resume",
      responses: { 200: ok("The archived run", Run) },
      objects: true,
      conflict: "run.generating: the run is generating; cancel it first",
    }),
    pathId("run"),
    (c) => archiveRoute(c, c.req.valid("param").id, true),
  )
  .post(
    "/:id/unarchive",
    runOp({
      operationId: "unarchiveRun",
      summary: "Take the run out of the archive",
      responses: { 200: ok("The run", Run) },
      objects: true,
    }),
    pathId("run"),
    (c) => archiveRoute(c, c.req.valid("param").id, false),
  )
  .get(
    "/:id/events",
    runOp({
      operationId: "streamRunEvents",
      summary: "Server-Sent Events of the run: rows, deltas, status and errors",
      description:
        "Events: `message` per stored row (id: its seq), `delta` while the model writes, `status` (after the replay, and as generations start and end), " +
        "`error`, and `run.continued` when the run hands off to a continuation. Each event's data has its schema (RunEvent). " +
        "A reconnecting EventSource resumes after Last-Event-ID (or ?after_seq=) with no gap and no duplicate.",
      responses: { 200: eventStream("The run's events (RunEvent)", RunEvent) },
      query: true,
      objects: true,
      parameters: [lastEventId],
      errors: { 429: failure("stream.too_many_subscribers: MAX_RUN_SUBSCRIBERS streams are open on the run; or the request budget is spent (rate_limited)") },
    }),
    pathId("run"),
    query(streamQuery(-1)),
    async (c) => {
      const { run } = await findRun(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      // Last-Event-ID (a reconnecting EventSource) wins over ?after_seq (a client that loaded history).
      const resume = resumePoint(c.req.header("last-event-id"), c.req.valid("query").after_seq, -1);
      if (!resume.ok) throw validationFailed([{ field: resume.field, message: resume.message }]);
      // A task run's rows are committed (and published) by its task's object, not the agent's.
      const taskId = taskOf(run);
      const object = taskId ? taskObject(c.env, taskId) : agentObject(c.env, run.agentId);
      return object.fetch(`https://agent/runs/${run.id}/events?after=${resume.after ?? -1}`, { signal: c.req.raw.signal });
    },
  )
  .get(
    "/:id/messages/:seq/prompt",
    runOp({
      operationId: "getRunPrompt",
      summary:
        "The exact prompt sent for an assistant row, with its hash: rebuilt from stored rows, or for a harness's call the request the model gateway kept",
      responses: { 200: ok("The replayed prompt", PromptReplay) },
      errors: { 404: failure("No such run in the caller's organisation (run.not_found), or no assistant row at seq (message.not_found)") },
    }),
    pathId("run", { seq: { schema: queryInt(0, MAX_SEQ).describe("The assistant row's seq"), resource: "message" } }),
    async (c) => {
      const db = c.get("db");
      const { id, seq } = c.req.valid("param");
      const { run } = await findRun(db, c.get("organisationId"), id);
      const snapshot = run.snapshot as RunSnapshot;
      // A harness's call: the exact request the model gateway kept, not a projection of rows.
      const harness = await harnessPrompt(c.env.ATTACHMENTS, db, run.id, seq);
      if (harness) return c.json(harness);
      const replay = await replayPrompt(db, run.id, seq, snapshot);
      if (!replay) throw notFound("message");
      return c.json({
        seq,
        model: snapshot.model.model,
        messages: replay.messages,
        tools: snapshot.tools,
        hash: replay.hash,
        recorded_hash: replay.recordedHash,
        matches: replay.hash === replay.recordedHash,
      });
    },
  );
/** Archives or unarchives through the agent object, the runs' single writer (RUN-024). */
async function archiveRoute(c: Context<AppEnv>, id: string, archived: boolean) {
  const { run } = await findRun(c.get("db"), c.get("organisationId"), id);
  settle(await agentObject(c.env, run.agentId).archive(run.id, archived));
  const after = await findRun(c.get("db"), c.get("organisationId"), run.id);
  return c.json(toRun(after.run, after.cost));
}
