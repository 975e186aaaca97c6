import { type Context, Hono } from "hono";
import type { Env } from "../../bindings/env";
import { agentObject } from "../../bindings/objects";
import { BoundedMap } from "../../core/cache/bounded-map";
import { boxRefusalStatus } from "../../core/sandbox/errors";
import { type InputDetector, InputThrottle, rfbInput, terminalInput } from "../../core/sandbox/view-input";
import { type SandboxView, type ViewTicketClaims, verifyViewTicket, viewTicketKey } from "../../core/sandbox/view-ticket";
import { isUuid } from "../../core/validation/fields";
import type { AppEnv } from "../http/context";
import { ApiError, notFound } from "../http/errors";
import { VIEW_RECHECK_MS, type ViewGrant, viewAccess } from "./view-access";
import { VNC_VIEWER_PAGE } from "./vnc-viewer";

/**
 * The proxied Browser and CLI views (SBX-018, SBX-026): `/api/agents/:id/browser/vnc/<ticket>/*`
 * to noVNC on the standard box's port 6080, `/api/agents/:id/cli/tty/<ticket>/*` to ttyd on
 * 7681 with its secret segment prepended to every upstream path (never a header: the
 * sandbox host's proxy drops Authorization). Authenticated by the view ticket in the path
 * (core/sandbox/view-ticket.ts), since a frame's page, assets and WebSocket carry no
 * Authorization header. The ticket proves only who minted it: each request (and each open
 * WebSocket bridge, every few seconds) also asks whether the view is on, the agent exists and
 * the minting token is live (workers/views/view-access.ts).
 *
 * What the box serves is the agent's to change (it runs as root there), so every proxied
 * answer is a sandboxed document of an opaque origin: it cannot read the console's storage,
 * its token or its cookies, though it is served from the console's host.
 */

/** The headers a proxied page gets instead of the console's: a sandbox, framed only by the console. */
export const VIEW_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": "sandbox allow-scripts allow-forms allow-modals allow-downloads allow-pointer-lock; frame-ancestors 'self'",
  "X-Frame-Options": "SAMEORIGIN",
  // The sandboxed page's origin is opaque: its module scripts and fetches are cross-origin.
  "Access-Control-Allow-Origin": "*",
  "Cache-Control": "no-store",
};

/** Request headers the box may see: no token, no cookie, nothing of the platform's. */
const FORWARDED = [
  "accept",
  "accept-language",
  "user-agent",
  "upgrade",
  "connection",
  "sec-websocket-key",
  "sec-websocket-version",
  "sec-websocket-protocol",
  "sec-websocket-extensions",
];

/**
 * Response headers of the box that reach the client; every other one is dropped. An
 * allowlist, since what the box sends is the agent's to choose: `Location` or `Refresh`
 * would send the frame elsewhere, `Clear-Site-Data` would wipe the console's storage, and
 * the next header nobody has thought of yet is dropped too. The proxy sets its own
 * security headers (VIEW_HEADERS).
 */
export const PASSED_HEADERS: readonly string[] = ["content-type", "content-length", "content-language", "content-encoding", "etag", "last-modified"];

const inputReports = new InputThrottle();

type ViewTarget = Awaited<ReturnType<ReturnType<typeof agentObject>["sandboxForView"]>>;

/** How long a view's target is reused: a page's many asset requests are one opening of the view. */
const TARGET_TTL_MS = 30_000;
const targets = new BoundedMap<string, { target: Extract<ViewTarget, { ok: true }>; at: number }>(1000);

/**
 * The box and port a view is proxied to. The agent object ensures the box (and re-arms its
 * idle timer, SBX-028) when asked. `fresh` asks it (a view start, a WebSocket connecting);
 * otherwise an answer younger than TARGET_TTL_MS is reused, so a page's asset requests
 * right after its start are not each a view opening, and only operator input moves the
 * timer after it (SBX-030).
 */
export async function viewTarget(env: Env, agentId: string, view: SandboxView, fresh: boolean): Promise<ViewTarget> {
  const key = `${agentId}:${view}`;
  const held = targets.get(key);
  if (!fresh && held && Date.now() - held.at < TARGET_TTL_MS) return held.target;
  const target = await agentObject(env, agentId).sandboxForView(view);
  if (target.ok) targets.set(key, { target, at: Date.now() });
  else targets.delete(key);
  return target;
}

/** The API's answer when the agent object will not open a view: 503 for no box, 404 for no agent, else 409. */
export const viewRefused = (refusal: { code: string; message: string }) => new ApiError(boxRefusalStatus(refusal.code), refusal.code, refusal.message);

const badTicket = () => new ApiError(401, "auth.invalid_ticket", "This view's link is not valid or has expired: open the tab again");

/**
 * Checks the path's agent id and ticket for this view, then that the view is on, the agent
 * exists and the minting token is live: 404, 401 or 403 otherwise. The grant it answers
 * names the agent by its canonical (lower-case) id, the one its object and box go by.
 */
async function admit(env: Env, rawAgentId: string, ticket: string, view: SandboxView): Promise<ViewGrant> {
  if (!isUuid(rawAgentId)) throw notFound("agent");
  const agentId = rawAgentId.toLowerCase();
  let key: Awaited<ReturnType<typeof viewTicketKey>>;
  try {
    key = await viewTicketKey(env.SECRETS_KEK);
  } catch {
    throw badTicket();
  }
  const claims: ViewTicketClaims | null = await verifyViewTicket(key, ticket, { agentId, view, now: Date.now() });
  if (!claims) throw badTicket();
  const grant = { agentId, view, tokenId: claims.tokenId };
  const refused = await viewAccess(env, grant);
  if (refused) throw new ApiError(refused.status, refused.code, refused.message);
  return grant;
}

/** The box's namespace binding, when this deployment declares it. */
function boxNamespace(env: Env, box: "lite" | "standard"): DurableObjectNamespace | undefined {
  const bindings = env as unknown as Partial<Record<"SANDBOX_LITE" | "SANDBOX_STANDARD", DurableObjectNamespace>>;
  return box === "lite" ? bindings.SANDBOX_LITE : bindings.SANDBOX_STANDARD;
}

/** The box's answer with only PASSED_HEADERS of its own, and the view's headers. */
export const withViewHeaders = (response: Response, status = response.status) => {
  const headers = new Headers();
  for (const name of PASSED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  for (const [name, value] of Object.entries(VIEW_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status, statusText: response.statusText, headers });
};

/**
 * Forwards one request of the view to the box. A WebSocket is bridged here rather than
 * handed through, so the client's messages can be read for operator input (SBX-030).
 */
async function proxy(c: Context<AppEnv>, grant: ViewGrant, rest: string): Promise<Response> {
  const { agentId, view } = grant;
  const upgrade = c.req.header("upgrade")?.toLowerCase() === "websocket";
  const ready = await viewTarget(c.env, agentId, view, upgrade);
  if (!ready.ok) throw viewRefused(ready);
  const namespace = boxNamespace(c.env, ready.box);
  if (!namespace) throw new ApiError(503, "sandbox.unavailable", `This deployment declares no ${ready.box} box`);
  const box = namespace.get(namespace.idFromName(ready.container));
  const search = new URL(c.req.url).search;
  const headers = new Headers();
  for (const name of FORWARDED) {
    const value = c.req.header(name);
    if (value) headers.set(name, value);
  }
  const upstream = new Request(`http://box${ready.pathPrefix ?? ""}/${rest}${search}`, { method: c.req.method, headers });
  // Loaded here: the package needs the Workers runtime, which the API document's build in Node lacks.
  const { switchPort } = await import("@cloudflare/containers");
  const answer = await box.fetch(switchPort(upstream, ready.port));
  if (!answer.webSocket) return withViewHeaders(answer);
  return bridge(
    answer,
    view === "browser" ? rfbInput() : terminalInput(),
    () => {
      if (inputReports.due(agentId, Date.now()))
        void agentObject(c.env, agentId)
          .sandboxViewInput()
          .catch(() => {});
    },
    // A failed read keeps the bridge: the next tick asks again.
    () => viewAccess(c.env, grant).catch(() => null),
  );
}

/**
 * Forwards one socket's messages to another, in order. Binary messages may arrive as Blobs,
 * which must be read before they are sent on (sending a Blob would send its name as text);
 * the chain keeps a message read quickly from overtaking one read slowly.
 */
function relay(to: WebSocket, seen?: (data: string | Uint8Array) => void) {
  let chain = Promise.resolve();
  return (event: MessageEvent) => {
    chain = chain
      .then(async () => {
        const raw = event.data as string | ArrayBuffer | Blob;
        const data = raw instanceof Blob ? await raw.arrayBuffer() : raw;
        seen?.(typeof data === "string" ? data : new Uint8Array(data));
        to.send(data);
      })
      .catch(() => to.close(1011, "relay failed"));
  };
}

/**
 * The client's socket, joined to the box's; `onInput` hears each message that holds operator
 * input. Every VIEW_RECHECK_MS `refused` is asked whether the view may stay open; a refusal
 * closes both sockets (1008, the refusal's code as the reason), so a view turned off, a token
 * revoked or an agent deleted does not leave a shell open.
 */
function bridge(answer: Response, detector: InputDetector, onInput: () => void, refused: () => Promise<{ code: string } | null>): Response {
  const boxSocket = answer.webSocket!;
  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  boxSocket.accept();
  server.accept();
  server.addEventListener(
    "message",
    relay(boxSocket, (data) => {
      if (detector.isInput(data)) onInput();
    }),
  );
  boxSocket.addEventListener("message", relay(server));
  // 1005 and 1006 cannot be sent in a close frame.
  const closeCode = (code: number) => (code === 1005 || code === 1006 ? 1000 : code);
  server.addEventListener("close", (event) => boxSocket.close(closeCode(event.code), event.reason));
  boxSocket.addEventListener("close", (event) => server.close(closeCode(event.code), event.reason));
  server.addEventListener("error", () => boxSocket.close(1011, "client error"));
  boxSocket.addEventListener("error", () => server.close(1011, "box error"));
  const recheck = setInterval(async () => {
    const refusal = await refused();
    if (!refusal) return;
    clearInterval(recheck);
    server.close(1008, refusal.code);
    boxSocket.close(1008, refusal.code);
  }, VIEW_RECHECK_MS);
  const stop = () => clearInterval(recheck);
  server.addEventListener("close", stop);
  boxSocket.addEventListener("close", stop);
  const headers = new Headers();
  const protocol = answer.headers.get("sec-websocket-protocol");
  if (protocol) headers.set("sec-websocket-protocol", protocol);
  return new Response(null, { status: 101, webSocket: client, headers });
}

/** Everything after `<ticket>/` in the request's path. */
const restOf = (c: Context<AppEnv>, marker: string) => {
  const path = new URL(c.req.url).pathname;
  const at = path.indexOf(`/${c.req.param("ticket")}/`, path.indexOf(marker));
  return at === -1 ? "" : path.slice(at + c.req.param("ticket")!.length + 2);
};

/** A view opened without its trailing slash: its page's relative URLs need one. */
const withSlash = (c: Context<AppEnv>) => c.redirect(`${new URL(c.req.url).pathname}/`, 308);

export const sandboxViewProxy = new Hono<AppEnv>()
  .get("/:id/browser/vnc/:ticket", async (c) => {
    await admit(c.env, c.req.param("id"), c.req.param("ticket"), "browser");
    return withSlash(c);
  })
  .get("/:id/browser/vnc/:ticket/", async (c) => {
    await admit(c.env, c.req.param("id"), c.req.param("ticket"), "browser");
    // The view page is the platform's own: noVNC's client from the box, scaled, with a clipboard bridge.
    return withViewHeaders(new Response(VNC_VIEWER_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }));
  })
  .get("/:id/browser/vnc/:ticket/*", async (c) => {
    const grant = await admit(c.env, c.req.param("id"), c.req.param("ticket"), "browser");
    return proxy(c, grant, restOf(c, "/browser/vnc/"));
  })
  .get("/:id/cli/tty/:ticket", async (c) => {
    await admit(c.env, c.req.param("id"), c.req.param("ticket"), "cli");
    return withSlash(c);
  })
  .get("/:id/cli/tty/:ticket/*", async (c) => {
    const grant = await admit(c.env, c.req.param("id"), c.req.param("ticket"), "cli");
    return proxy(c, grant, restOf(c, "/cli/tty/"));
  });
