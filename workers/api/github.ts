import { and, asc, eq } from "drizzle-orm";
import { Hono } from "hono";
import type { Env } from "../../bindings/env";
import { githubApp, githubOAuth } from "../../bindings/github";
import { holdInstallation, spendClaimState } from "../../core/db/github-claims";
import { toWire } from "../../core/db/rows";
import { githubConnections } from "../../core/db/schema";
import { AppKeyError } from "../../core/github/app-jwt";
import { CLAIM_STATE_TTL_MS, claimStateKey, mintClaimState, randomNonce, readClaimState } from "../../core/github/claim-state";
import { type GitHubApp, GitHubError } from "../../core/github/client";
import { GitHubCodeError, type GitHubOAuth } from "../../core/github/oauth";
import type { AppEnv } from "../http/context";
import { failure, jsonBody, ok, operation, pathId } from "../http/contract";
import { ApiError, notFound } from "../http/errors";
import { GitHubClaim, GitHubConnection, GitHubConnectionCreate, GitHubConnectionList } from "./repositories.schema";

/**
 * The organisation's GitHub connections (OP-REPO-6): installations of the platform's GitHub
 * App, claimed the way GitHub Apps are. `POST /claims` answers the App's install URL with a
 * state signed for the organisation; GitHub sends the user back to the setup URL (a console
 * page) with the installation id, a code and that state, which the page posts to
 * `POST /connections`. The state is spent once; the code becomes a user token; the
 * installation is accepted only when GitHub lists it for that user and that user administers
 * its account (the account itself, or an active owner of the organisation: GitHub lists an
 * installation for mere collaborators too), and only while no other organisation holds it. Nothing about the installation (its account) is answered before the
 * claim succeeds. Disconnecting keeps the row, so the repositories using it stay listed and
 * their generations fail with repository.token; another organisation may then claim it.
 */

type ConnectionRow = typeof githubConnections.$inferSelect;
export const toConnection = (row: ConnectionRow) => toWire(row, ["organisationId"]);

export const NOT_CONFIGURED = "github.not_configured: the platform has no GitHub App (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY)";
const CLAIM_NOT_CONFIGURED =
  "github.not_configured: the platform has no GitHub App, or not what claiming an installation needs (GITHUB_APP_SLUG, GITHUB_APP_CLIENT_ID, GITHUB_APP_CLIENT_SECRET)";

/** The platform's GitHub App, or 503 when the operator has not configured one. */
export function requireGitHub(env: Env): GitHubApp {
  const app = githubApp(env);
  if (!app) throw new ApiError(503, "github.not_configured", "The platform has no GitHub App configured (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY)");
  return app;
}

/** The App's install page and OAuth client, or 503 naming what the operator has not set. */
function requireClaims(env: Env): GitHubOAuth {
  requireGitHub(env);
  const oauth = githubOAuth(env);
  if (!oauth) {
    throw new ApiError(
      503,
      "github.not_configured",
      "The platform's GitHub App lacks what claiming an installation needs (GITHUB_APP_SLUG, GITHUB_APP_CLIENT_ID, GITHUB_APP_CLIENT_SECRET)",
    );
  }
  return oauth;
}

const stateKey = (env: Env) =>
  claimStateKey(env.SECRETS_KEK).catch(() => {
    throw new ApiError(503, "github.not_configured", "The platform has no SECRETS_KEK to sign installation claims with");
  });

/**
 * A GitHub failure as the API reports it. The client's messages never carry a token or the
 * key, so they may be passed on.
 */
export function githubFailure(error: unknown, field: string): never {
  if (error instanceof GitHubCodeError) throw new ApiError(422, "github.code_refused", error.message, { field: "code" });
  if (error instanceof AppKeyError) throw new ApiError(503, "github.not_configured", error.message);
  if (!(error instanceof GitHubError)) throw error;
  if (error.kind === "installation_refused") throw new ApiError(422, "github.installation_refused", error.message, { field });
  if (error.kind === "repository_unreachable") throw new ApiError(422, "github.repository_unreachable", error.message, { field, repository: error.repository });
  throw new ApiError(502, "github.unavailable", error.message);
}

const INSTALLATION_REFUSED =
  "The user who approved does not administer this installation on GitHub: only the account it is installed on, or an owner of that organisation, may claim it";
const UNAVAILABLE = failure("GitHub could not be reached or did not accept the App's credentials (github.unavailable)");

export const githubRoutes = new Hono<AppEnv>()
  .get(
    "/connections",
    operation({
      operationId: "listGitHubConnections",
      summary: "The organisation's GitHub connections, disconnected ones included, and whether the platform has a GitHub App to claim installations of",
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
      return c.json({ data: rows.map(toConnection), configured: githubApp(c.env) !== null && githubOAuth(c.env) !== null });
    },
  )
  .post(
    "/claims",
    operation({
      operationId: "createGitHubClaim",
      summary: "Start claiming an installation: the App's install URL with a state signed for this organisation, good once for ten minutes",
      tag: "Repositories",
      responses: { 201: ok("Where to send the user", GitHubClaim) },
      errors: { 503: failure(CLAIM_NOT_CONFIGURED) },
    }),
    async (c) => {
      const oauth = requireClaims(c.env);
      const expiresAt = Date.now() + CLAIM_STATE_TTL_MS;
      const state = await mintClaimState(await stateKey(c.env), { organisationId: c.get("organisationId"), nonce: randomNonce(), expiresAt });
      c.header("cache-control", "no-store");
      return c.json({ install_url: oauth.installUrl(state), state, expires_at: new Date(expiresAt).toISOString() }, 201);
    },
  )
  .post(
    "/connections",
    operation({
      operationId: "createGitHubConnection",
      summary:
        "Claim an installation with what GitHub's redirect to the setup URL carried: accepted when the state is this organisation's and unspent, and the user whose code it is administers the installation's account on GitHub (the account itself, or an owner of the organisation); connecting a disconnected one again reconnects it",
      tag: "Repositories",
      responses: { 201: ok("The connection, with the installation's account", GitHubConnection) },
      body: true,
      invalid:
        "github.state_invalid: the state is not one this organisation was given, or it expired; github.code_refused: GitHub refused the code; github.installation_refused: the user who approved does not administer the installation (the account itself, or an active owner of the organisation), or it does not exist; both read the same",
      conflict:
        "github.state_used: the state was spent already; github_connection.exists: the installation is already connected; github.installation_held: another organisation holds the installation until it disconnects it",
      errors: { 502: UNAVAILABLE, 503: failure(CLAIM_NOT_CONFIGURED) },
    }),
    jsonBody(GitHubConnectionCreate),
    async (c) => {
      const oauth = requireClaims(c.env);
      const { installation_id: installationId, code, state } = c.req.valid("json");
      const db = c.get("db");
      const organisationId = c.get("organisationId");
      const claim = await readClaimState(await stateKey(c.env), state, { organisationId, now: Date.now() });
      if (!claim) {
        throw new ApiError(422, "github.state_invalid", "The state is not one this organisation was given for a claim, or it has expired: connect again", {
          field: "state",
        });
      }
      if (!(await spendClaimState(db, { nonce: claim.nonce, organisationId, expiresAt: new Date(claim.expiresAt) }))) {
        throw new ApiError(409, "github.state_used", "The state has been used already: connect again", { field: "state" });
      }
      const userToken = await oauth.exchangeCode(code).catch((error: unknown) => githubFailure(error, "code"));
      const installation = await oauth.administeredInstallation(userToken, installationId).catch((error: unknown) => githubFailure(error, "code"));
      // One answer whether the installation is missing, unseen or not the user's to give: no id, no account.
      if (!installation) throw new ApiError(422, "github.installation_refused", INSTALLATION_REFUSED, { field: "installation_id" });
      const hold = await holdInstallation(db, organisationId, installationId, installation.account_login);
      if ("exists" in hold) {
        throw new ApiError(409, "github_connection.exists", `Installation ${installationId} is already connected`, { connection_id: hold.exists.id });
      }
      if ("elsewhere" in hold) {
        throw new ApiError(
          409,
          "github.installation_held",
          `Installation ${installationId} is connected to another organisation; it can be claimed once it is disconnected there`,
          {
            field: "installation_id",
          },
        );
      }
      return c.json(toConnection(hold.held), 201);
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
