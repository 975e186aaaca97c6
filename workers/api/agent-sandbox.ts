import { Hono } from "hono";
import { agentObject } from "../../bindings/objects";
import { boxRefusalStatus } from "../../core/sandbox/errors";
import { mintViewTicket, type SandboxView, VIEW_TICKET_TTL_MS, viewTicketKey } from "../../core/sandbox/view-ticket";
import type { AppEnv } from "../http/context";
import { failure, ok, operation, pathId } from "../http/contract";
import { ApiError } from "../http/errors";
import { viewRefused, viewTarget } from "../views/sandbox-view-proxy";
import { BrowserTicket, BrowserView, boxFor, CliTicket, CliView, HomeReset, SandboxState } from "./agent-sandbox.schema";
import { findAgent } from "./agents";

/**
 * The operator's views of an agent's box (SBX-018, SBX-023, UI-011..014): its state, and
 * starting the Browser (noVNC) or CLI (ttyd) view. Starting answers the path of the view
 * under a fresh ticket; workers/views/sandbox-view-proxy.ts serves that path. A ticket names the
 * token of the request that minted it and lives VIEW_TICKET_TTL_MS (15 minutes): an open
 * tab renews it through the ticket routes, which mint one without touching the box, so an
 * open tab does not keep an idle box alive (only operator input does, SBX-030).
 */

const UNAVAILABLE = failure(
  "The agent's box cannot be started: no container engine, containers disabled, or a failed start (sandbox.unavailable; the message says which)",
);

/** The path prefix a view is proxied under, with its ticket. */
export const viewPrefix = (agentId: string, view: SandboxView, ticket: string) =>
  `/api/agents/${agentId}/${view === "browser" ? "browser/vnc" : "cli/tty"}/${ticket}/`;

type Caller = { env: AppEnv["Bindings"]; get: (key: "tokenId") => string };

/** A ticket for the agent's view, minted for the caller's token: the view's path and expiry. */
async function ticketFor(c: Caller, agentId: string, view: SandboxView) {
  let key: Awaited<ReturnType<typeof viewTicketKey>>;
  try {
    key = await viewTicketKey(c.env.SECRETS_KEK);
  } catch (error) {
    throw new ApiError(503, "sandbox.unavailable", `Views cannot be opened: ${(error as Error).message}`);
  }
  const expiresAt = Date.now() + VIEW_TICKET_TTL_MS;
  const ticket = await mintViewTicket(key, { agentId, view, tokenId: c.get("tokenId"), expiresAt });
  return { path: viewPrefix(agentId, view, ticket), expires_at: new Date(expiresAt).toISOString() };
}

/** Brings the box up for the view and mints the ticket that opens it. */
async function startView(c: Caller, agentId: string, view: SandboxView) {
  const answer = await viewTarget(c.env, agentId, view, true);
  if (!answer.ok) throw viewRefused(answer);
  return { box: answer.box, ...(await ticketFor(c, agentId, view)) };
}

const browserDisabled = () =>
  new ApiError(409, "browser.disabled", "This agent has no browser: turn on browser access in its settings to open the Browser view");
const cliDisabled = () => new ApiError(409, "cli.disabled", "This agent's CLI is off: turn on cli in its settings to open the CLI view");

export const sandboxViewRoutes = new Hono<AppEnv>()
  .get(
    "/:id/sandbox",
    operation({
      operationId: "getAgentSandbox",
      summary: "The agent's box and whether it is starting, running or unavailable (and why)",
      tag: "Agents",
      responses: { 200: ok("The box's state", SandboxState) },
      notFound: "agent",
    }),
    pathId("agent"),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const state = await agentObject(c.env, agent.id).sandboxState();
      // Without a box, the one its settings call for is the one a view would start.
      const box = state.status === "starting" || state.status === "running" ? (state.box ?? boxFor(agent)) : boxFor(agent);
      return c.json(SandboxState.parse({ ...state, box }));
    },
  )
  .post(
    "/:id/sandbox/reset",
    operation({
      operationId: "resetAgentHome",
      summary: "Reset the agent's home: destroy its box without saving and delete the saved home",
      description:
        "The way out of a home that cannot be saved or restored (sandbox.home_save_failed, workspace.full). Every file under /home/agent is lost; the next box starts with an empty home. The console asks for confirmation first.",
      tag: "Agents",
      responses: { 200: ok("The home was reset", HomeReset) },
      notFound: "agent",
      conflict: "agent.busy: the agent is generating; cancel its run first",
      errors: { 503: UNAVAILABLE },
    }),
    pathId("agent"),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const reset = await agentObject(c.env, agent.id).sandboxResetHome();
      if (!reset.ok) throw new ApiError(boxRefusalStatus(reset.code), reset.code, reset.message);
      return c.json({ reset: true, destroyed: reset.destroyed } satisfies typeof HomeReset._zod.output, 200);
    },
  )
  .post(
    "/:id/browser/start",
    operation({
      operationId: "startAgentBrowserView",
      summary: "Create or wake the agent's box and open its Browser view (noVNC)",
      description:
        "Starts the 5-minute idle timer (UI-011). The answer's vnc_url embeds the view; it carries a ticket valid until expires_at, so the page, its assets and its WebSocket need no Authorization header.",
      tag: "Agents",
      responses: { 200: ok("The view to embed", BrowserView) },
      notFound: "agent",
      conflict: "browser.disabled: the agent's browser access is off; or the box cannot serve the view now (its sandbox code, e.g. workspace.full)",
      errors: { 503: UNAVAILABLE },
    }),
    pathId("agent"),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      if (!agent.browser) throw browserDisabled();
      const view = await startView(c, agent.id, "browser");
      return c.json({ box: view.box, vnc_url: view.path, expires_at: view.expires_at } satisfies typeof BrowserView._zod.output, 200, {
        "Cache-Control": "no-store",
      });
    },
  )
  .post(
    "/:id/cli/start",
    operation({
      operationId: "startAgentCliView",
      summary: "Bring the agent's box up, start its terminal (agent-cli-start) and open the CLI view (ttyd)",
      description: "Starts the 5-minute idle timer (SBX-028). tty_url embeds ttyd's page under a ticket valid until expires_at.",
      tag: "Agents",
      responses: { 200: ok("The terminal to embed", CliView) },
      notFound: "agent",
      conflict: "cli.disabled: the agent's CLI access is off; or the terminal could not start in the box (its sandbox code)",
      errors: { 503: UNAVAILABLE },
    }),
    pathId("agent"),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      if (!agent.cli) throw cliDisabled();
      const view = await startView(c, agent.id, "cli");
      return c.json({ box: view.box, tty_url: view.path, expires_at: view.expires_at } satisfies typeof CliView._zod.output, 200, {
        "Cache-Control": "no-store",
      });
    },
  )
  .post(
    "/:id/browser/ticket",
    operation({
      operationId: "renewAgentBrowserTicket",
      summary: "A new ticket for the open Browser view, without waking or touching the box",
      description:
        "An open Browser tab asks for one before its ticket's expires_at; the path differs from vnc_url by its ticket only. It does not start the box nor restart its idle timer.",
      tag: "Agents",
      responses: { 200: ok("The view's path under the new ticket", BrowserTicket) },
      notFound: "agent",
      conflict: "browser.disabled: the agent's browser access is off",
      errors: { 503: UNAVAILABLE },
    }),
    pathId("agent"),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      if (!agent.browser) throw browserDisabled();
      const ticket = await ticketFor(c, agent.id, "browser");
      return c.json({ vnc_url: ticket.path, expires_at: ticket.expires_at } satisfies typeof BrowserTicket._zod.output, 200, { "Cache-Control": "no-store" });
    },
  )
  .post(
    "/:id/cli/ticket",
    operation({
      operationId: "renewAgentCliTicket",
      summary: "A new ticket for the open CLI view, without waking or touching the box",
      description:
        "An open CLI tab asks for one before its ticket's expires_at; the path differs from tty_url by its ticket only. It does not start the box nor restart its idle timer.",
      tag: "Agents",
      responses: { 200: ok("The view's path under the new ticket", CliTicket) },
      notFound: "agent",
      conflict: "cli.disabled: the agent's CLI access is off",
      errors: { 503: UNAVAILABLE },
    }),
    pathId("agent"),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      if (!agent.cli) throw cliDisabled();
      const ticket = await ticketFor(c, agent.id, "cli");
      return c.json({ tty_url: ticket.path, expires_at: ticket.expires_at } satisfies typeof CliTicket._zod.output, 200, { "Cache-Control": "no-store" });
    },
  );
