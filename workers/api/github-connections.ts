import { and, asc, eq } from "drizzle-orm";
import { Hono } from "hono";
import type { Env } from "../../bindings/env";
import { githubApp } from "../../bindings/github";
import { toWire } from "../../core/db/rows";
import { githubConnections } from "../../core/db/schema";
import { AppKeyError } from "../../core/github/app-jwt";
import { type GitHubApp, GitHubError } from "../../core/github/client";
import { GitHubConnection, GitHubConnectionCreate, GitHubConnectionList } from "../../core/validation/repository";
import type { AppEnv } from "../context";
import { failure, jsonBody, ok, operation, pathId } from "../contract";
import { ApiError, notFound } from "../errors";

/**
 * The organisation's GitHub connections (OP-REPO-6): installations of the platform's GitHub
 * App, checked with GitHub when connected. Disconnecting keeps the row, so the repositories
 * using it stay listed and their generations fail with repository.token.
 */

type ConnectionRow = typeof githubConnections.$inferSelect;
export const toConnection = (row: ConnectionRow) => toWire(row, ["organisationId"]);

export const NOT_CONFIGURED = "github.not_configured: the platform has no GitHub App (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY)";

/** The platform's GitHub App, or 503 when the operator has not configured one. */
export function requireGitHub(env: Env): GitHubApp {
  const app = githubApp(env);
  if (!app) throw new ApiError(503, "github.not_configured", "The platform has no GitHub App configured (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY)");
  return app;
}

/**
 * A GitHub failure as the API reports it. The client's messages never carry a token or the
 * key, so they may be passed on.
 */
export function githubFailure(error: unknown, field: string): never {
  if (error instanceof AppKeyError) throw new ApiError(503, "github.not_configured", error.message);
  if (!(error instanceof GitHubError)) throw error;
  if (error.kind === "installation_refused") throw new ApiError(422, "github.installation_refused", error.message, { field });
  if (error.kind === "repository_unreachable") throw new ApiError(422, "github.repository_unreachable", error.message, { field, repository: error.repository });
  throw new ApiError(502, "github.unavailable", error.message);
}

const UNAVAILABLE = failure("GitHub could not be reached or did not accept the App's credentials (github.unavailable)");

export const githubRoutes = new Hono<AppEnv>()
  .get(
    "/connections",
    operation({
      operationId: "listGitHubConnections",
      summary: "The organisation's GitHub connections, disconnected ones included, and whether the platform has a GitHub App",
      tag: "Repositories",
      responses: { 200: ok("The connections, oldest first", GitHubConnectionList) },
    }),
    async (c) => {
      const rows = await c
        .get("db")
        .select()
        .from(githubConnections)
        .where(eq(githubConnections.organisationId, c.get("organisationId")))
        .orderBy(asc(githubConnections.createdAt), asc(githubConnections.id));
      return c.json({ data: rows.map(toConnection), configured: githubApp(c.env) !== null });
    },
  )
  .post(
    "/connections",
    operation({
      operationId: "createGitHubConnection",
      summary: "Connect an installation of the platform's GitHub App; connecting a disconnected one again reconnects it",
      tag: "Repositories",
      responses: { 201: ok("The connection, with the installation's account", GitHubConnection) },
      body: true,
      invalid: "github.installation_refused: GitHub does not know the installation for this App",
      conflict: "github_connection.exists: the installation is already connected",
      errors: { 502: UNAVAILABLE, 503: failure(NOT_CONFIGURED) },
    }),
    jsonBody(GitHubConnectionCreate),
    async (c) => {
      const app = requireGitHub(c.env);
      const { installation_id: installationId } = c.req.valid("json");
      const db = c.get("db");
      const organisationId = c.get("organisationId");
      const mine = and(eq(githubConnections.organisationId, organisationId), eq(githubConnections.installationId, installationId));
      const [existing] = await db.select().from(githubConnections).where(mine).limit(1);
      if (existing && existing.disconnectedAt === null) {
        throw new ApiError(409, "github_connection.exists", `Installation ${installationId} is already connected`, { connection_id: existing.id });
      }
      const installation = await app.installation(installationId).catch((error: unknown) => githubFailure(error, "installation_id"));
      const [row] = existing
        ? await db.update(githubConnections).set({ accountLogin: installation.account_login, disconnectedAt: null }).where(mine).returning()
        : await db
            .insert(githubConnections)
            .values({ organisationId, installationId, accountLogin: installation.account_login })
            .onConflictDoUpdate({
              target: [githubConnections.organisationId, githubConnections.installationId],
              set: { accountLogin: installation.account_login, disconnectedAt: null },
            })
            .returning();
      return c.json(toConnection(row!), 201);
    },
  )
  .delete(
    "/connections/:id",
    operation({
      operationId: "deleteGitHubConnection",
      summary: "Disconnect an installation: its repositories stay and their generations fail with repository.token until it is connected again",
      tag: "Repositories",
      responses: { 200: ok("The disconnected connection", GitHubConnection) },
      notFound: "github_connection",
    }),
    pathId("github_connection"),
    async (c) => {
      const { id } = c.req.valid("param");
      const mine = and(eq(githubConnections.id, id), eq(githubConnections.organisationId, c.get("organisationId")));
      const db = c.get("db");
      const [row] = await db.select().from(githubConnections).where(mine).limit(1);
      if (!row) throw notFound("github_connection");
      if (row.disconnectedAt) return c.json(toConnection(row));
      const [updated] = await db.update(githubConnections).set({ disconnectedAt: new Date() }).where(mine).returning();
      return c.json(toConnection(updated!));
    },
  );
