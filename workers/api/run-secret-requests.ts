import { and, eq, inArray, or, sql } from "drizzle-orm";
import { Hono } from "hono";
import { notifySecretsChanged } from "../../bindings/secret-change";
import type { Database } from "../../core/db/client";
import { messages, secretGrants, secrets } from "../../core/db/schema";
import { agentsReachedBy } from "../../core/db/secrets";
import { writeAgentSecret } from "../../core/secrets/agent-secret";
import { keySetFrom } from "../../core/secrets/crypto";
import type { SecretRequestInfo } from "../../core/tools/types";
import type { AppEnv } from "../http/context";
import { failure, jsonBody, ok, operation, pathId } from "../http/contract";
import { ApiError, notFound } from "../http/errors";
import { MAX_SEQ, queryInt } from "../http/query.schema";
import { findRun } from "./run-queries";
import { SecretRequest, SecretRequestAnswer, SecretRequestList } from "./run-secret-requests.schema";

/**
 * The operator's side of secret_request (OP-SEC-5, OP-UI-8): a request is the tool row its
 * call left in the direct run (metadata.secret_request); it is answered once a secret of
 * that name reaching the agent was written after it. Answering stores the value as that
 * secret and grants it to the agent; the value is never returned.
 */

type RequestRow = { seq: number; createdAt: Date; metadata: unknown };

const requestOf = (row: RequestRow) => (row.metadata as { secret_request?: SecretRequestInfo }).secret_request;

/** The run's request rows, oldest first; with `seq`, only that one. */
async function requestRows(db: Database, runId: string, seq?: number): Promise<RequestRow[]> {
  const rows = await db
    .select({ seq: messages.seq, createdAt: messages.createdAt, metadata: messages.metadata })
    .from(messages)
    .where(
      and(
        eq(messages.runId, runId),
        eq(messages.role, "tool"),
        sql`${messages.metadata} ? 'secret_request'`,
        seq === undefined ? undefined : eq(messages.seq, seq),
      ),
    )
    .orderBy(messages.seq);
  return rows.filter((r) => requestOf(r));
}

/** Each request with its status, from the secrets of those names that reach the agent. */
async function withStatus(db: Database, scope: { organisationId: string; agentId: string; guildId: string }, rows: RequestRow[]) {
  const names = [...new Set(rows.map((r) => requestOf(r)!.name))];
  const reaching = names.length
    ? await db
        .selectDistinct({ id: secrets.id, name: secrets.name, updatedAt: secrets.updatedAt })
        .from(secrets)
        .leftJoin(secretGrants, eq(secretGrants.secretId, secrets.id))
        .where(
          and(
            eq(secrets.organisationId, scope.organisationId),
            inArray(secrets.name, names),
            or(eq(secrets.orgWide, true), eq(secretGrants.agentId, scope.agentId), eq(secretGrants.guildId, scope.guildId)),
          ),
        )
    : [];
  const byName = new Map(reaching.map((s) => [s.name, s]));
  return rows.map((row) => {
    const request = requestOf(row)!;
    const secret = byName.get(request.name);
    const answered = secret !== undefined && secret.updatedAt.getTime() >= row.createdAt.getTime();
    return SecretRequest.parse({
      seq: row.seq,
      name: request.name,
      description: request.description,
      reason: request.reason,
      requested_at: row.createdAt.toISOString(),
      status: answered ? "answered" : "pending",
      ...(answered ? { secret_id: secret.id } : {}),
    });
  });
}

export const secretRequestRoutes = new Hono<AppEnv>()
  .get(
    "/:id/secret-requests",
    operation({
      operationId: "listSecretRequests",
      summary: "The secrets the agent asked the operator for in this run (secret_request), pending or answered",
      tag: "Secrets",
      responses: { 200: ok("The run's secret requests, oldest first", SecretRequestList) },
      notFound: "run",
    }),
    pathId("run"),
    async (c) => {
      const db = c.get("db");
      const { run, guildId } = await findRun(db, c.get("organisationId"), c.req.valid("param").id);
      const rows = await requestRows(db, run.id);
      return c.json({ data: await withStatus(db, { organisationId: c.get("organisationId"), agentId: run.agentId, guildId }, rows) });
    },
  )
  .post(
    "/:id/secret-requests/:seq",
    operation({
      operationId: "answerSecretRequest",
      summary: "Answer a secret request: store the value as the named secret and grant it to the agent",
      description: "The secret reaches the agent from its next generation. An existing secret of that name gets the new value. The value is never returned.",
      tag: "Secrets",
      responses: { 200: ok("The request, answered", SecretRequest) },
      errors: { 404: failure("No such run in the caller's organisation (run.not_found), or no secret request at seq (secret_request.not_found)") },
      conflict:
        "secret.name_taken: a secret of that name was being created at the same moment; try again. secret.limit_reached: the organisation has as many secrets as it may. secret.name_reserved: the request names a variable the box reads for itself",
      body: true,
    }),
    pathId("run", { seq: { schema: queryInt(0, MAX_SEQ).describe("The seq of the request's tool row"), resource: "secret_request" } }),
    jsonBody(SecretRequestAnswer),
    async (c) => {
      const db = c.get("db");
      const organisationId = c.get("organisationId");
      const { id, seq } = c.req.valid("param");
      const { run, guildId } = await findRun(db, organisationId, id);
      const [row] = await requestRows(db, run.id, seq);
      if (!row) throw notFound("secret_request");
      let keys: Awaited<ReturnType<typeof keySetFrom>>;
      try {
        keys = await keySetFrom(c.env.SECRETS_KEK, c.env.SECRETS_KEK_PREVIOUS);
      } catch (error) {
        throw new ApiError(503, "secrets.unconfigured", `Secrets are not available: ${(error as Error).message}`);
      }
      const request = requestOf(row)!;
      const [existing] = await db
        .select({ id: secrets.id })
        .from(secrets)
        .where(and(eq(secrets.organisationId, organisationId), eq(secrets.name, request.name)));
      const reached = existing ? await agentsReachedBy(db, organisationId, existing.id) : [];
      const written = await writeAgentSecret(
        db,
        keys,
        { organisationId, agentId: run.agentId, name: request.name, description: request.description, value: c.req.valid("json").value },
        true,
      );
      if (!written.ok) throw new ApiError(409, written.code, written.message);
      // Every agent the secret reached and reaches now, as any secret change (SEC-007).
      await notifySecretsChanged(c.env, [...reached, ...(await agentsReachedBy(db, organisationId, written.id))]);
      const [answered] = await withStatus(db, { organisationId, agentId: run.agentId, guildId }, [row]);
      return c.json(answered!, 200, { "Cache-Control": "no-store" });
    },
  );
