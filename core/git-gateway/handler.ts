/**
 * The git gateway (TASK-014, TASK-017): a task's box reaches the forge only through it, over
 * smart HTTP, for the task's own repository. The box authenticates with its run's credential
 * (HTTP Basic password); the gateway forwards with the installation token, which never enters
 * the box, and checks a push's command list (and the pack's history, for a task branch update)
 * before the forge takes it. Fetch-style and free of Workers APIs: the Worker's outbound
 * handler and Node tests serve it alike.
 */
import { tokenAuthorization } from "../repos/git-token-key";
import type { Ancestry, PushPolicy, Refusal } from "./check-push";
import { needsAncestry, refsRefusals } from "./check-push";
import { PktError, readCommandSection } from "./pkt-line";
import { forwardedBody, PackVerifier } from "./push-stream";
import { refusalBody, refusalResponse } from "./report";

/** What the task's object answers for a valid run credential. */
export interface GitAuthorization {
  /** `owner/repo` on the forge. */
  fullName: string;
  baseBranch: string;
  taskKey: string;
  allowForcePush: boolean;
  /** The installation token: only ever in the forwarded request's Authorization header. */
  token: string;
}

/** A refused push, told to the task (its events, its run). */
export interface GitRefusalEvent {
  taskId: string;
  fullName: string;
  refs: Array<{ ref: string; old: string; new: string; reason: string }>;
}

export interface GatewayDeps {
  authorize(taskId: string, credential: string): Promise<GitAuthorization | null>;
  /** The forge's git base: `${forgeGitUrl}/<owner>/<repo>.git/...`. */
  forgeGitUrl: string;
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  refused(event: GitRefusalEvent): Promise<void>;
  /** Whether `ancestor` is an ancestor of `commit` on the forge (its compare API), for the grant's repository. */
  ancestry(grant: GitAuthorization, ancestor: string, commit: string): Promise<boolean>;
}

const PATH = /^\/tasks\/([A-Za-z0-9_-]{1,64})\/([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9._-]+?)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;
const SERVICES = new Set(["git-upload-pack", "git-receive-pack"]);
/** Headers of the forge's answer the box may see. */
const ANSWER_HEADERS = ["content-type", "cache-control", "expires", "pragma"];
/** What a refused request's unread body is drained up to, so git reads the answer instead of a broken pipe. */
const DRAIN_LIMIT = 256 * 1024 * 1024;

const text = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(`${message}\n`, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });

/** The Basic password, whatever the user name (git sends the one its credential helper gives). */
function basicPassword(request: Request): string | null {
  const match = /^basic\s+([A-Za-z0-9+/=]+)$/i.exec(request.headers.get("authorization") ?? "");
  if (!match) return null;
  let decoded: string;
  try {
    decoded = atob(match[1]!);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  return colon === -1 || colon === decoded.length - 1 ? null : decoded.slice(colon + 1);
}

export async function gatewayHandler(request: Request, deps: GatewayDeps): Promise<Response> {
  try {
    return await handle(request, deps);
  } catch {
    // Nothing of the failure (a forge address, a token in a message) reaches the box.
    return text(502, "the git gateway could not complete the request");
  }
}

async function handle(request: Request, deps: GatewayDeps): Promise<Response> {
  const url = new URL(request.url);
  const match = PATH.exec(url.pathname);
  if (!match) return text(404, "not found");
  const [, taskId, owner, repo, endpoint] = match as unknown as [string, string, string, string, string];
  const service = endpoint === "info/refs" ? url.searchParams.get("service") : endpoint;
  if (!service || !SERVICES.has(service)) return text(404, "not found (smart HTTP only)");
  if ((endpoint === "info/refs") !== (request.method === "GET") || (request.method !== "GET" && request.method !== "POST")) {
    return text(405, "method not allowed");
  }
  const credential = basicPassword(request);
  const grant = credential === null ? null : await deps.authorize(taskId, credential);
  if (!grant) return text(401, "the run's git credential is missing or not valid", { "www-authenticate": 'Basic realm="git gateway"' });
  if (`${owner}/${repo}`.toLowerCase() !== grant.fullName.toLowerCase()) return text(403, "this task's box reaches its own repository only");

  const target = `${deps.forgeGitUrl.replace(/\/+$/, "")}/${grant.fullName}.git/${endpoint}${endpoint === "info/refs" ? `?service=${service}` : ""}`;
  const headers = forwardedHeaders(request, grant.token);
  if (request.method === "GET") return answer(await deps.fetch(target, { method: "GET", headers }));
  if (service === "git-upload-pack") {
    const encoding = request.headers.get("content-encoding");
    if (encoding) headers.set("content-encoding", encoding);
    return answer(await deps.fetch(target, { method: "POST", headers, body: request.body, duplex: "half" } as RequestInit));
  }
  return receivePack(request, deps, { taskId, grant, target, headers });
}

function forwardedHeaders(request: Request, token: string): Headers {
  const headers = new Headers({ authorization: tokenAuthorization(token) });
  for (const name of ["content-type", "accept", "git-protocol"]) {
    const value = request.headers.get(name);
    if (value) headers.set(name, value);
  }
  // GitHub serves smart HTTP to git's own user agent; anything else is not passed on.
  const agent = request.headers.get("user-agent");
  if (agent?.startsWith("git/")) headers.set("user-agent", agent.slice(0, 100));
  return headers;
}

/** The forge's answer as the box sees it: allowlisted headers; a refused token is the gateway's failure, not the box's. */
function answer(response: Response): Response {
  if (response.status === 401 || response.status === 403) {
    void response.body?.cancel();
    return text(502, "the forge refused the gateway's credential for this repository");
  }
  if (response.status >= 400) {
    void response.body?.cancel();
    return text(response.status === 404 ? 404 : 502, `the forge answered HTTP ${response.status}`);
  }
  const headers = new Headers();
  for (const name of ANSWER_HEADERS) {
    const value = response.headers.get(name);
    if (value) headers.set(name, value);
  }
  return new Response(response.body, { status: response.status, headers });
}

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let read = 0;
  try {
    while (read < DRAIN_LIMIT) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.length;
    }
    await reader.cancel();
  } catch {
    // The box went away: nothing to answer.
  }
}

interface Push {
  taskId: string;
  grant: GitAuthorization;
  target: string;
  headers: Headers;
}

async function receivePack(request: Request, deps: GatewayDeps, push: Push): Promise<Response> {
  const encoding = request.headers.get("content-encoding");
  if (!request.body) return text(400, "a push needs a body");
  if (encoding && encoding !== "gzip") return text(415, `content encoding ${encoding} is not supported`);
  // The forge gets the push as it was sent, less the compression the gateway undid to read it.
  const body = encoding === "gzip" ? request.body.pipeThrough(new DecompressionStream("gzip")) : request.body;
  const reader = body.getReader();
  let section: Awaited<ReturnType<typeof readCommandSection>>;
  try {
    section = await readCommandSection(reader);
  } catch (error) {
    await drain(reader);
    if (error instanceof PktError) return text(400, `the push could not be read: ${error.message}`);
    throw error;
  }
  const { commands, capabilities } = section;
  const policy: PushPolicy = {
    taskBranch: `factory/task/${push.grant.taskKey}`,
    wipBranch: `factory/wip/${push.grant.taskKey}`,
    baseBranch: push.grant.baseBranch,
    allowForcePush: push.grant.allowForcePush,
  };
  const refuse = async (refusals: Refusal[], drained?: Promise<void>) => {
    const reasons = new Map(refusals.map((r) => [r.ref, r.reason]));
    const refs = commands.map((c) => ({ ref: c.ref, old: c.old, new: c.new, reason: reasons.get(c.ref) ?? "atomic push failure" }));
    await deps.refused({ taskId: push.taskId, fullName: push.grant.fullName, refs }).catch(() => {});
    if (!drained) return refusalResponse(commands, refusals, capabilities);
    // Refused before the box sent all of its body: the report goes out at once, and the answer
    // ends once the rest is drained, so git reads the refusal instead of a broken pipe.
    const report = refusalBody(commands, refusals, capabilities);
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(report),
      pull: async (controller) => {
        await drained;
        controller.close();
      },
    });
    return refusalResponse(commands, refusals, capabilities, body);
  };
  if (commands.length && !capabilities.includes("report-status") && !capabilities.includes("report-status-v2")) {
    await drain(reader);
    return text(400, "a push must ask for report-status");
  }
  const byRefs = refsRefusals(commands, policy);
  if (byRefs.length) {
    await drain(reader);
    return refuse(byRefs);
  }
  const checked = needsAncestry(commands, policy);
  const ancestry: Ancestry = (ancestor, commit) => deps.ancestry(push.grant, ancestor, commit);
  const verifier = checked.length ? new PackVerifier(commands, policy, ancestry) : null;
  // A refused push aborts the forwarded request before the pack's last bytes left.
  const abort = new AbortController();
  const upstreamBody = forwardedBody(section.raw, section.rest, reader, verifier, () => abort.abort());
  push.headers.delete("content-encoding");
  let response: Response;
  try {
    response = await deps.fetch(push.target, {
      method: "POST",
      headers: push.headers,
      body: upstreamBody,
      duplex: "half",
      signal: abort.signal,
    } as RequestInit);
  } catch (error) {
    if (verifier?.refusals?.length) return refuse(verifier.refusals, drain(reader));
    throw error;
  }
  if (verifier?.refusals?.length) {
    void response.body?.cancel();
    return refuse(verifier.refusals, drain(reader));
  }
  return answer(response);
}
