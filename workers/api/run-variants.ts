import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { agentObject } from "../../bindings/objects";
import type { Outcome } from "../../bindings/outcome";
import type { Database } from "../../core/db/client";
import { messages, promptVariants } from "../../core/db/schema";
import { toWireVariant, type WireVariant } from "../../core/db/variants";
import { isPlatformProvider, modelBaseUrlIssue } from "../../core/providers/provider";
import { MAX_VARIANTS_PER_REQUEST } from "../../core/shared/variant-limit";
import { UNSET_MAX_TOKENS_HOLD } from "../../core/usage/reservation";
import type { FieldIssue } from "../../core/validation/issues";
import type { VariantSettings } from "../../core/variants/request";
import type { AppEnv } from "../http/context";
import { failure, jsonBody, ok, operation, pathId, query } from "../http/contract";
import { notFound, settle, validationFailed } from "../http/errors";
import { ListQuery } from "../http/page.schema";
import { listPage } from "../http/pagination";
import { MAX_SEQ, queryInt } from "../http/query.schema";
import { findRun } from "./run-queries";
import { VariantBatch, VariantCreate, VariantPage } from "./variants.schema";

const seqParam = { seq: { schema: queryInt(0, MAX_SEQ).describe("The assistant row's seq"), resource: "message" } };
const notAssistant = failure("No such run in the caller's organisation (run.not_found), or no assistant row at seq (message.not_found)");

/** The run of the caller's organisation, and its assistant row at seq, or 404. */
async function recordedCall(db: Database, organisationId: string, id: string, seq: number) {
  const { run } = await findRun(db, organisationId, id);
  const [row] = await db
    .select({ role: messages.role })
    .from(messages)
    .where(and(eq(messages.runId, run.id), eq(messages.seq, seq)))
    .limit(1);
  if (row?.role !== "assistant") throw notFound("message");
  return run;
}

/**
 * Where a variant's provider may point, as for an agent's model_base_url (HARDEN-4), and
 * a provider other than the platform's needs its key named: the 422 issues, field by field.
 */
function providerIssues(variants: VariantSettings[], env: AppEnv["Bindings"]): FieldIssue[] {
  return variants.flatMap((v, i) => {
    if (!v.base_url || isPlatformProvider(v.base_url, env.MODEL_BASE_URL)) return [];
    const issue = modelBaseUrlIssue(v.base_url, env);
    if (issue) return [{ field: `variants.${i}.base_url`, message: issue.message }];
    if (!v.api_key_secret) {
      return [{ field: `variants.${i}.api_key_secret`, message: "required with a base_url other than the platform's: the platform's key is never sent there" }];
    }
    return [];
  });
}

/** `/api/runs/:id/messages/:seq/variants`: what-if replay of one recorded model call (decision 0022). */
export const runVariantRoutes = new Hono<AppEnv>()
  .post(
    "/:id/messages/:seq/variants",
    operation({
      operationId: "createPromptVariants",
      summary: `Send an assistant row's exact prompt again with changed settings, up to ${MAX_VARIANTS_PER_REQUEST} variants side by side`,
      description:
        "Each variant changes the recorded call's model, provider, temperature, thinking level, max tokens, system prompt or tool schemas. " +
        "The calls run side by side and the answer comes when all are done (each stopped after 120 s). Variants never run tools and never " +
        "touch the run's transcript; their cost counts in the usage counters and against the organisation's spend limit. Before the calls the " +
        `batch holds its worst-case cost (each variant's max_tokens, ${UNSET_MAX_TOKENS_HOLD} when unset, and the prompt's input tokens, at the model's price) ` +
        "against the limit, beside the holds of requests still running; the real cost replaces the hold when each call ends.",
      tag: "Runs",
      responses: { 201: ok("The variants, each completed or failed", VariantBatch) },
      body: true,
      objects: true,
      conflict:
        "usage.spend_limit: the organisation reached its monthly spend limit, or the batch's worst-case cost does not fit in what is left of it, no call was made; " +
        "secret.missing, secret.undecryptable: the run's secrets cannot be opened",
      errors: { 404: notAssistant },
    }),
    pathId("run", seqParam),
    jsonBody(VariantCreate),
    async (c) => {
      const { id, seq } = c.req.valid("param");
      const run = await recordedCall(c.get("db"), c.get("organisationId"), id, seq);
      const { variants } = c.req.valid("json");
      const issues = providerIssues(variants, c.env);
      if (issues.length) throw validationFailed(issues);
      // The answer crosses RPC as plain JSON values; its declared type is the object's own.
      const answer = (await agentObject(c.env, run.agentId).runVariants({ runId: run.id, seq, requestedBy: c.get("tokenId"), variants })) as unknown;
      const batch = settle(answer as Outcome<{ batch_id: string; variants: WireVariant[] }>);
      return c.json({ batch_id: batch.batch_id, data: batch.variants }, 201);
    },
  )
  .get(
    "/:id/messages/:seq/variants",
    operation({
      operationId: "listPromptVariants",
      summary: "The variants of an assistant row, newest first",
      tag: "Runs",
      responses: { 200: ok("A page of variants", VariantPage) },
      query: true,
      errors: { 404: notAssistant },
    }),
    pathId("run", seqParam),
    query(ListQuery),
    async (c) => {
      const { id, seq } = c.req.valid("param");
      const db = c.get("db");
      const run = await recordedCall(db, c.get("organisationId"), id, seq);
      const page = listPage(c.req.valid("query"));
      const rows = await db
        .select()
        .from(promptVariants)
        .where(and(eq(promptVariants.runId, run.id), eq(promptVariants.messageSeq, seq), page.where(promptVariants.createdAt, promptVariants.id)))
        .orderBy(...page.order(promptVariants.createdAt, promptVariants.id))
        .limit(page.limit + 1);
      return c.json(page.result(rows, toWireVariant));
    },
  );
