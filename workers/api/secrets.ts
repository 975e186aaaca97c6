import { and, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import type { Env } from "../../bindings/env";
import { notifySecretsChanged } from "../../bindings/secret-change";
import { sqlState, UNIQUE_VIOLATION } from "../../core/db/outage";
import { secretGrants, secrets } from "../../core/db/schema";
import { findSecretRow, grantsOf, type SecretGrantRow, type SecretRow } from "../../core/db/secret-rows";
import { agentsReachedBy } from "../../core/db/secrets";
import { keySetFrom, sealSecret } from "../../core/secrets/crypto";
import { MAX_SECRETS_PER_ORGANISATION, reserveSecretSlot, SecretLimitReached } from "../../core/secrets/limit";
import { isUuid } from "../../core/validation/fields";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation, pathId, query } from "../http/contract";
import { ApiError, notFound } from "../http/errors";
import { ListQuery } from "../http/page.schema";
import { listPage, organisationRows } from "../http/pagination";
import { grantRoutes } from "./grant-routes";
import { Secret, SecretCreate, SecretGrantCreate, SecretPage, SecretPatch } from "./secrets.schema";

/**
 * Secrets of the organisation and their grants (OP-SEC-1). A value goes in on create or
 * update and is sealed before it reaches the database; no response ever carries it (SEC-006).
 */

const toGrant = (g: SecretGrantRow) => ({ id: g.id, guild_id: g.guildId, agent_id: g.agentId, created_at: g.createdAt.toISOString() });

const toSecret = (row: SecretRow, grants: SecretGrantRow[]) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  org_wide: row.orgWide,
  grants: grants.map(toGrant),
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

const duplicateName = (name: string) => new ApiError(409, "secret.name_taken", `The organisation already has a secret named ${name}`, { field: "name" });

/** The key set, or 503 when the operator has not configured SECRETS_KEK. */
async function keys(env: Env) {
  try {
    return await keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS);
  } catch (error) {
    throw new ApiError(503, "secrets.unconfigured", `Secrets are not available: ${(error as Error).message}`);
  }
}

async function findSecret(db: AppEnv["Variables"]["db"], organisationId: string, id: string) {
  const row = isUuid(id) ? await findSecretRow(db, organisationId, id) : undefined;
  if (!row) throw notFound("secret");
  return row;
}

async function withGrants(db: AppEnv["Variables"]["db"], row: SecretRow) {
  return toSecret(row, (await grantsOf(db, [row.id])).get(row.id)!);
}

/** Runs a write that may hit the (organisation, name) unique index: 409 instead of 500. */
async function uniqueName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (name !== undefined && sqlState(error) === UNIQUE_VIOLATION) throw duplicateName(name);
    throw error;
  }
}

const CONFLICT = "secret.name_taken: the organisation already has a secret of that name";

export const secretRoutes = new Hono<AppEnv>()
  .post(
    "/",
    operation({
      operationId: "createSecret",
      summary: "Create a secret; its value is stored encrypted and never returned",
      tag: "Secrets",
      responses: { 201: ok("The new secret, without its value", Secret) },
      body: true,
      conflict: `${CONFLICT}. secret.limit_reached: the organisation already has ${MAX_SECRETS_PER_ORGANISATION} secrets (details.limit)`,
    }),
    jsonBody(SecretCreate),
    async (c) => {
      const body = c.req.valid("json");
      const organisationId = c.get("organisationId");
      // The id is chosen here because the ciphertext is bound to it.
      const id = crypto.randomUUID();
      const sealed = await sealSecret(await keys(c.env), { organisationId, secretId: id }, body.value);
      const [row] = await uniqueName(body.name, () =>
        c
          .get("db")
          .transaction(async (tx) => {
            await reserveSecretSlot(tx, organisationId);
            return tx
              .insert(secrets)
              .values({ id, organisationId, name: body.name, description: body.description, orgWide: body.org_wide, ...sealed })
              .returning();
          })
          .catch((error: unknown) => {
            if (error instanceof SecretLimitReached) throw new ApiError(409, error.code, error.message, { limit: error.limit });
            throw error;
          }),
      );
      // Without grants yet, a new secret reaches agents only when organisation-wide.
      if (row!.orgWide) await notifySecretsChanged(c.env, await agentsReachedBy(c.get("db"), organisationId, id));
      return c.json(toSecret(row!, []), 201);
    },
  )
  .get(
    "/",
    operation({
      operationId: "listSecrets",
      summary: "The organisation's secrets, newest first, with their grants (never their values)",
      tag: "Secrets",
      responses: { 200: ok("A page of secrets, without values", SecretPage) },
      query: true,
    }),
    query(ListQuery),
    async (c) => {
      const db = c.get("db");
      const page = listPage(c.req.valid("query"));
      const rows = await organisationRows(db, secrets, c.get("organisationId"), page);
      const grants = await grantsOf(
        db,
        rows.map((r) => r.id),
      );
      return c.json(page.result(rows, (r) => toSecret(r, grants.get(r.id)!)));
    },
  )
  .get(
    "/:id",
    operation({
      operationId: "getSecret",
      summary: "Read a secret's name, description, scope and grants (never its value)",
      tag: "Secrets",
      responses: { 200: ok("The secret", Secret) },
      notFound: "secret",
    }),
    pathId("secret"),
    async (c) => {
      const row = await findSecret(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      return c.json(await withGrants(c.get("db"), row));
    },
  )
  .patch(
    "/:id",
    operation({
      operationId: "updateSecret",
      summary: "Change a secret's value, name, description or scope",
      tag: "Secrets",
      responses: { 200: ok("The changed secret", Secret) },
      notFound: "secret",
      body: true,
      conflict: CONFLICT,
    }),
    pathId("secret"),
    jsonBody(SecretPatch),
    async (c) => {
      const organisationId = c.get("organisationId");
      const { id } = c.req.valid("param");
      await findSecret(c.get("db"), organisationId, id);
      const reached = await agentsReachedBy(c.get("db"), organisationId, id);
      const body = c.req.valid("json");
      const sealed = body.value === undefined ? {} : await sealSecret(await keys(c.env), { organisationId, secretId: id }, body.value);
      const [row] = await uniqueName(body.name, () =>
        c
          .get("db")
          .update(secrets)
          .set({ name: body.name, description: body.description, orgWide: body.org_wide, ...sealed, updatedAt: sql`now()` })
          .where(and(eq(secrets.id, id), eq(secrets.organisationId, organisationId)))
          .returning(),
      );
      if (!row) throw notFound("secret");
      // Every agent it reached and every agent it reaches now (SEC-007: value, name, description or scope).
      await notifySecretsChanged(c.env, [...reached, ...(await agentsReachedBy(c.get("db"), organisationId, id))]);
      return c.json(await withGrants(c.get("db"), row));
    },
  )
  .delete(
    "/:id",
    operation({
      operationId: "deleteSecret",
      summary: "Delete a secret and its grants; agents that used it fail their next generation start",
      tag: "Secrets",
      responses: { 204: ok("Deleted") },
      notFound: "secret",
    }),
    pathId("secret"),
    async (c) => {
      const { id } = c.req.valid("param");
      const organisationId = c.get("organisationId");
      const reached = isUuid(id) ? await agentsReachedBy(c.get("db"), organisationId, id) : [];
      const deleted = await c
        .get("db")
        .delete(secrets)
        .where(and(eq(secrets.id, id), eq(secrets.organisationId, organisationId)))
        .returning({ id: secrets.id });
      if (deleted.length === 0) throw notFound("secret");
      await notifySecretsChanged(c.env, reached);
      return c.body(null, 204);
    },
  )
  .route(
    "/",
    grantRoutes<SecretRow>({
      resource: "secret",
      grant: "secret_grant",
      noun: "secret",
      tag: "Secrets",
      operationIds: { grant: "grantSecret", revoke: "revokeSecretGrant" },
      schema: Secret,
      body: SecretGrantCreate,
      find: findSecret,
      add: async (env, db, row, { guildId, agentId }) => {
        const existing = (await grantsOf(db, [row.id])).get(row.id)!;
        if (existing.some((g) => (guildId ? g.guildId === guildId : g.agentId === agentId))) return false;
        await db.insert(secretGrants).values({ secretId: row.id, guildId: guildId ?? null, agentId: agentId ?? null });
        await notifySecretsChanged(env, await agentsReachedBy(db, row.organisationId, row.id));
        return true;
      },
      remove: async (env, db, row, grantId) => {
        const reached = await agentsReachedBy(db, row.organisationId, row.id);
        const deleted = await db
          .delete(secretGrants)
          .where(and(eq(secretGrants.id, grantId), eq(secretGrants.secretId, row.id)))
          .returning({ id: secretGrants.id });
        if (deleted.length === 0) return false;
        await notifySecretsChanged(env, reached);
        return true;
      },
      wire: withGrants,
    }),
  );
