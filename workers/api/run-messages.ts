import { and, asc, eq, gt, lt } from "drizzle-orm";
import { Hono, type Context } from "hono";
import * as z from "zod";
import type { Database } from "../../core/db/client";
import { messages } from "../../core/db/schema";
import { toWireRow } from "../../core/db/transcript";
import { replayProjection, STUB_FLOOR_BYTES } from "../../core/projection/projection";
import { promptHash } from "../../core/projection/prompt-hash";
import type { StoredRow } from "../../core/projection/types";
import type { RunSnapshot } from "../../core/runs/snapshot";
import { fieldIssues } from "../../core/validation/issues";
import { MAX_SEQ, queryInt, resumePoint } from "../../core/validation/query";
import { Message, MessageCreate, Run } from "../../core/validation/run";
import { storedRow } from "../../core/db/transcript";
import { agentObject } from "../../bindings/objects";
import { readBody } from "../body";
import type { AppEnv } from "../context";
import { notFound, validationFailed } from "../errors";
import type { RouteDoc } from "../openapi";
import { attachmentRefs, findRun, settle, toRun } from "./runs";

const MessagesQuery = z.strictObject({
  after_seq: queryInt(-1, MAX_SEQ).default(-1),
  limit: queryInt(1, 1000).default(500),
});

const PromptReplay = z.object({
  seq: z.int(),
  model: z.string(),
  messages: z.array(z.record(z.string(), z.unknown())),
  tools: z.array(z.unknown()),
  hash: z.string(),
  recorded_hash: z.string().nullable(),
  matches: z.boolean(),
});

/** `/api/runs/:id/...`: one run's transcript, messages, cancel, resume, events, prompt replay. */
export const runRoutes = new Hono<AppEnv>()
  .get("/:id", async (c) => {
    const found = await findRun(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const state = await agentObject(c.env, found.run.agentId).generationState();
    const generating = state.generating && state.run_id === found.run.id;
    // The object writes a generation's outcome before it frees the lock: once it says
    // "not generating", a fresh read shows that outcome, never a half-finished state.
    const { run, cost } = generating ? found : await findRun(c.get("db"), c.get("organisationId"), found.run.id);
    return c.json(toRun(run, cost, { generating, withSnapshot: true }));
  })
  .get("/:id/messages", async (c) => {
    const { run } = await findRun(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const query = MessagesQuery.safeParse(c.req.query());
    if (!query.success) throw validationFailed(fieldIssues(query.error));
    const rows = await c.get("db").select().from(messages)
      .where(and(eq(messages.runId, run.id), gt(messages.seq, query.data.after_seq)))
      .orderBy(asc(messages.seq)).limit(query.data.limit);
    return c.json({ data: rows.map(toWireRow) });
  })
  .post("/:id/messages", async (c) => {
    const db = c.get("db");
    const { run } = await findRun(db, c.get("organisationId"), c.req.param("id"));
    const body = await readBody(c, MessageCreate);
    const refs = await attachmentRefs(db, c.get("organisationId"), body.attachments, "attachments");
    const result = settle(await agentObject(c.env, run.agentId).postMessage(run.id, { content: body.content, attachments: refs }));
    return c.json({ run_id: run.id, seq: result.seq, generation: result.generation }, 202);
  })
  .post("/:id/cancel", async (c) => {
    const { run } = await findRun(c.get("db"), c.get("organisationId"), c.req.param("id"));
    settle(await agentObject(c.env, run.agentId).cancel(run.id));
    const after = await findRun(c.get("db"), c.get("organisationId"), run.id);
    return c.json(toRun(after.run, after.cost, { generating: false }));
  })
  .post("/:id/resume", async (c) => {
    const { run } = await findRun(c.get("db"), c.get("organisationId"), c.req.param("id"));
    settle(await agentObject(c.env, run.agentId).resume(run.id));
    const after = await findRun(c.get("db"), c.get("organisationId"), run.id);
    return c.json(toRun(after.run, after.cost));
  })
  .post("/:id/archive", (c) => archiveRoute(c, true))
  .post("/:id/unarchive", (c) => archiveRoute(c, false))
  .get("/:id/events", async (c) => {
    const { run } = await findRun(c.get("db"), c.get("organisationId"), c.req.param("id"));
    // Last-Event-ID (a reconnecting EventSource) wins over ?after_seq (a client that loaded history).
    const resume = resumePoint(c.req.header("last-event-id"), c.req.query("after_seq"), -1);
    if (!resume.ok) throw validationFailed([{ field: resume.field, message: resume.message }]);
    return agentObject(c.env, run.agentId).fetch(`https://agent/runs/${run.id}/events?after=${resume.after ?? -1}`, { signal: c.req.raw.signal });
  })
  .get("/:id/messages/:seq/prompt", async (c) => {
    const db = c.get("db");
    const { run } = await findRun(db, c.get("organisationId"), c.req.param("id"));
    const parsed = queryInt(0, MAX_SEQ).safeParse(c.req.param("seq"));
    if (!parsed.success) throw notFound("message");
    const seq = parsed.data;
    const [target] = await db.select().from(messages).where(and(eq(messages.runId, run.id), eq(messages.seq, seq))).limit(1);
    if (!target || target.role !== "assistant") throw notFound("message");
    const projection = (target.metadata as { projection?: { pressure_stubbed?: number[]; hash?: string; keep?: number } }).projection ?? {};
    const snapshot = run.snapshot as RunSnapshot;
    const replayed = replayProjection({
      rows: await rowsBefore(db, run.id, seq),
      currentGeneration: target.generation ?? 0,
      keep: snapshot.model.keep_tool_result_generations,
      floor: STUB_FLOOR_BYTES,
      pressureStubbed: projection.pressure_stubbed ?? [],
    });
    const hash = await promptHash(replayed, snapshot.tools, snapshot.model.model);
    return c.json({
      seq,
      model: snapshot.model.model,
      messages: replayed,
      tools: snapshot.tools,
      hash,
      recorded_hash: projection.hash ?? null,
      matches: hash === projection.hash,
    });
  });

/** Archives or unarchives through the agent object, the runs' single writer (RUN-024). */
async function archiveRoute(c: Context<AppEnv>, archived: boolean) {
  const { run } = await findRun(c.get("db"), c.get("organisationId"), c.req.param("id")!);
  settle(await agentObject(c.env, run.agentId).archive(run.id, archived));
  const after = await findRun(c.get("db"), c.get("organisationId"), run.id);
  return c.json(toRun(after.run, after.cost));
}

/** Rows read per query when the prompt replay loads a transcript. */
const REPLAY_PAGE_ROWS = 500;

/** The run's rows before `seq`, in seq order, read a page at a time (never the whole transcript in one read). */
async function rowsBefore(db: Database, runId: string, seq: number): Promise<StoredRow[]> {
  const rows: StoredRow[] = [];
  for (let after = -1; ;) {
    const page = await db.select().from(messages)
      .where(and(eq(messages.runId, runId), gt(messages.seq, after), lt(messages.seq, seq)))
      .orderBy(asc(messages.seq)).limit(REPLAY_PAGE_ROWS);
    for (const row of page) rows.push(storedRow(row));
    if (page.length < REPLAY_PAGE_ROWS) return rows;
    after = page[page.length - 1]!.seq;
  }
}

export const runMessageDocs: RouteDoc[] = [
  { method: "get", path: "/api/runs/{id}/messages", summary: "The run's rows in order (?after_seq=N, ?limit=)", tag: "Runs", response: z.object({ data: z.array(Message) }) },
  { method: "post", path: "/api/runs/{id}/messages", summary: "Send a message; 202 and a generation starts (409 agent.busy while the agent generates)", tag: "Runs", body: MessageCreate, status: 202, response: z.object({ run_id: z.uuid(), seq: z.int(), generation: z.int() }) },
  { method: "post", path: "/api/runs/{id}/cancel", summary: "Cancel the running generation (409 run.not_generating otherwise)", tag: "Runs", response: Run },
  { method: "post", path: "/api/runs/{id}/resume", summary: "Reopen a completed run (409 run.not_resumable with the reason)", tag: "Runs", response: Run },
  { method: "post", path: "/api/runs/{id}/archive", summary: "Archive the run: it refuses messages and resume (409 run.generating while it generates)", tag: "Runs", response: Run },
  { method: "post", path: "/api/runs/{id}/unarchive", summary: "Take the run out of the archive", tag: "Runs", response: Run },
  { method: "get", path: "/api/runs/{id}/events", summary: "Server-Sent Events: message (id: seq), delta, status, error; resumes after Last-Event-ID or ?after_seq; 429 stream.too_many_subscribers past MAX_RUN_SUBSCRIBERS", tag: "Runs" },
  { method: "get", path: "/api/runs/{id}/messages/{seq}/prompt", summary: "The exact projection sent for assistant row seq, rebuilt from stored rows, with its hash", tag: "Runs", response: PromptReplay },
];
