import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { isDatabaseUnavailable } from "../core/db/client";
import { describeError, logEvent } from "../core/output/log";
import { platformRedactor } from "../core/output/redaction";
import { agentRunRoutes } from "./api/agent-runs";
import { sandboxViewRoutes } from "./api/agent-sandbox";
import { agentScheduleRoutes } from "./api/agent-schedules";
import { agentScriptRoutes } from "./api/agent-scripts";
import { agentRoutes } from "./api/agents";
import { attachmentLinkRoutes } from "./api/attachment-links";
import { attachmentRoutes } from "./api/attachments";
import { githubRoutes } from "./api/github";
import { githubDeliveryRoutes } from "./api/github-deliveries";
import { guildAgentRoutes } from "./api/guild-agents";
import { groupChatRoutes } from "./api/guild-chat";
import { guildRepositoryRoutes } from "./api/guild-repositories";
import { guildTaskRoutes } from "./api/guild-tasks";
import { guildRoutes } from "./api/guilds";
import { healthRoutes } from "./api/health";
import { mcpConnectionRoutes } from "./api/mcp-connections";
import { mcpOauthRoutes } from "./api/mcp-oauth";
import { mcpPresetRoutes } from "./api/mcp-presets";
import { organisationRoutes } from "./api/organisation";
import { taskSettingsRoutes } from "./api/organisation-task-settings";
import { platformRoutes } from "./api/platform";
import { repositoryRoutes } from "./api/repositories";
import { runChangeRoutes } from "./api/run-changes";
import { secretRequestRoutes } from "./api/run-secret-requests";
import { runVariantRoutes } from "./api/run-variants";
import { runRoutes } from "./api/runs";
import { scheduleRoutes } from "./api/schedules";
import { secretRoutes } from "./api/secrets";
import { taskRoutes } from "./api/tasks";
import { tokenRoutes } from "./api/tokens";
import { usageRoutes } from "./api/usage";
import { usageReportRoutes } from "./api/usage-reports";
import { variantRoutes } from "./api/variants";
import { canonicalIds } from "./canonical-ids";
import { GIT_GATEWAY_ROUTE, gitGatewayRoute } from "./git-gateway";
import { GITHUB_WEBHOOK_ROUTE, githubWebhookRoutes } from "./github-webhooks";
import type { AppEnv } from "./http/context";
import { operation } from "./http/contract";
import { ApiError, databaseUnavailable, errorResponse } from "./http/errors";
import { authenticate, database } from "./middleware";
import { MODEL_GATEWAY_ROUTE, modelGatewayRoute } from "./model-gateway";
import { openApiDocument } from "./openapi";
import { callerRateLimit, rateLimit } from "./rate-limit";
import { securityHeaders } from "./security-headers";
import { sandboxViewProxy } from "./views/sandbox-view-proxy";

export const API_VERSION = "0.1.0";

/** The edge API under /api; everything else is the console's static assets. */
export const app = new Hono<AppEnv>();

app.use(securityHeaders);
// Before anything reads an id: one spelling per id, and a malformed one never reaches the database.
app.use(
  "/api/*",
  canonicalIds(
    () => app.routes,
    (request, c) => app.fetch(request, c.env, c.executionCtx),
  ),
);
app.route("/api/health", healthRoutes);
let document: Promise<Record<string, unknown>> | undefined;
app.get(
  "/api/openapi.json",
  operation({
    operationId: "getOpenApiDocument",
    summary: "This document (OpenAPI 3.1)",
    tag: "Platform",
    public: true,
    responses: { 200: { description: "The API document", content: { "application/json": { schema: { type: "object" } } } } },
  }),
  async (c) => {
    // Generated once per isolate, on the first request for it.
    document ??= openApiDocument(app, API_VERSION).catch((error: unknown) => {
      document = undefined;
      throw error;
    });
    return c.json(await document);
  },
);

// A task box's git, where the platform routes it here (GIT_GATEWAY_URL): the run's credential, not a bearer token.
app.use(`${GIT_GATEWAY_ROUTE}/*`, callerRateLimit);
app.all(`${GIT_GATEWAY_ROUTE}/*`, gitGatewayRoute);
// A task box's harness's model calls, likewise (MODEL_GATEWAY_URL, decision 0032).
app.use(`${MODEL_GATEWAY_ROUTE}/*`, callerRateLimit);
app.all(`${MODEL_GATEWAY_ROUTE}/*`, modelGatewayRoute);

// The GitHub App's webhook deliveries: their signature is the credential, not a bearer token.
app.route(GITHUB_WEBHOOK_ROUTE, githubWebhookRoutes);

// The Browser and CLI views authenticate by the ticket in their path, not a bearer token.
app.use("/api/agents/:id/browser/vnc/*", callerRateLimit);
app.use("/api/agents/:id/cli/tty/*", callerRateLimit);
app.route("/api/agents", sandboxViewProxy);

// An image a model provider fetches (ATT-005): the signed link is its credential, not a bearer token.
app.use("/api/attachments/:id/signed", callerRateLimit);
app.route("/api/attachments", attachmentLinkRoutes);

const api = new Hono<AppEnv>();
// The caller budget comes first: a flood of junk tokens must not reach the database.
api.use(callerRateLimit, database, authenticate, rateLimit);
api.route("/guilds", guildRoutes);
api.route("/guilds", guildAgentRoutes);
api.route("/guilds", groupChatRoutes);
api.route("/guilds", guildRepositoryRoutes);
api.route("/guilds", guildTaskRoutes);
api.route("/agents", agentRoutes);
api.route("/agents", agentRunRoutes);
api.route("/agents", agentScheduleRoutes);
api.route("/agents", agentScriptRoutes);
api.route("/agents", sandboxViewRoutes);
api.route("/runs", runRoutes);
api.route("/runs", runChangeRoutes);
api.route("/runs", secretRequestRoutes);
api.route("/runs", runVariantRoutes);
api.route("/variants", variantRoutes);
api.route("/schedules", scheduleRoutes);
api.route("/attachments", attachmentRoutes);
api.route("/usage", usageRoutes);
api.route("/usage", usageReportRoutes);
api.route("/mcp", mcpPresetRoutes);
api.route("/mcp/connections", mcpConnectionRoutes);
// OAuth of MCP connections: /mcp/connections/:id/authorize and the console's /mcp/oauth/callback.
api.route("/mcp", mcpOauthRoutes);
api.route("/organisation", organisationRoutes);
api.route("/platform", platformRoutes);
api.route("/organisation", taskSettingsRoutes);
api.route("/tokens", tokenRoutes);
api.route("/secrets", secretRoutes);
api.route("/github", githubRoutes);
api.route("/github", githubDeliveryRoutes);
api.route("/repositories", repositoryRoutes);
api.route("/tasks", taskRoutes);
app.route("/api", api);

app.notFound((c) => {
  if (c.req.path.startsWith("/api/") || c.req.path === "/api") {
    return errorResponse(c, new ApiError(404, "route.not_found", `No route ${c.req.method} ${c.req.path}`));
  }
  return c.env.ASSETS ? c.env.ASSETS.fetch(c.req.raw) : c.text("Not found", 404);
});

app.onError((error, c) => {
  if (error instanceof ApiError) return errorResponse(c, error);
  if (error instanceof HTTPException) {
    return errorResponse(c, new ApiError(error.status as 400, "request.invalid", error.message));
  }
  // Past a call's deadline, or the connection failed: here, or in an object (an RPC or a
  // fetch that rejected carries the message only).
  if (isDatabaseUnavailable(error)) {
    logEvent("warn", { operation: `${c.req.method} ${c.req.routePath}`, ...describeError(error) }, platformRedactor(c.env));
    return errorResponse(c, databaseUnavailable());
  }
  // Unknown failures: one structured line with no request body, payloads or secrets.
  logEvent("error", { operation: `${c.req.method} ${c.req.routePath}`, ...describeError(error) }, platformRedactor(c.env));
  return errorResponse(c, new ApiError(500, "internal", "Something went wrong on our side"));
});
