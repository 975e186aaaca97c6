/**
 * Smart HTTP git through `git http-backend` (CGI): the real protocol for clone, fetch and
 * push, request and response bodies streamed. A gzip request body (git sends its larger
 * upload-pack requests so) is inflated by http-backend itself, told by HTTP_CONTENT_ENCODING.
 */
import { spawn } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";

export interface GitRequest {
  /** Holds `<owner>/<repo>.git`. */
  projectRoot: string;
  /** `/<owner>/<repo>.git/info/refs` and the like. */
  pathInfo: string;
  query: string;
  /** Set only for an authorised push: http-backend enables receive-pack for an authenticated user. */
  remoteUser?: string;
  /** Runs once git is done and before the answer ends (what a push sets off); its failure is only logged. */
  beforeEnd?: () => Promise<void>;
}

/** Whether this git request writes (a push): `git-receive-pack` as the service or the endpoint. */
export function isPush(pathInfo: string, query: string): boolean {
  return pathInfo.endsWith("/git-receive-pack") || new URLSearchParams(query).get("service") === "git-receive-pack";
}

export function serveGit(req: IncomingMessage, res: ServerResponse, git: GitRequest): Promise<void> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    GIT_PROJECT_ROOT: git.projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GATEWAY_INTERFACE: "CGI/1.1",
    REQUEST_METHOD: req.method ?? "GET",
    PATH_INFO: git.pathInfo,
    QUERY_STRING: git.query,
    REMOTE_ADDR: req.socket.remoteAddress ?? "",
    CONTENT_TYPE: req.headers["content-type"] ?? "",
  };
  // Without a length (chunked upload) http-backend reads the body to its end.
  if (req.headers["content-length"]) env.CONTENT_LENGTH = req.headers["content-length"];
  if (req.headers["content-encoding"]) env.HTTP_CONTENT_ENCODING = req.headers["content-encoding"];
  // Protocol v2 is asked for in this header; http-backend reads it from GIT_PROTOCOL.
  const protocol = req.headers["git-protocol"];
  if (typeof protocol === "string") env.GIT_PROTOCOL = protocol;
  if (git.remoteUser) env.REMOTE_USER = git.remoteUser;

  return new Promise((resolve) => {
    const child = spawn("git", ["http-backend"], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-4000);
    });
    req.pipe(child.stdin);
    child.stdin.on("error", () => {}); // http-backend may answer (an error) before reading all
    let head = Buffer.alloc(0);
    let headersDone = false;
    // A large clone's pack waits in the pipe while the client reads slowly.
    const forward = (chunk: Buffer) => {
      if (!res.write(chunk)) {
        child.stdout.pause();
        res.once("drain", () => child.stdout.resume());
      }
    };
    child.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) {
        forward(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = headerEnd(head);
      if (end === null) return;
      headersDone = true;
      writeCgiHead(res, head.subarray(0, end.at).toString("latin1"));
      const rest = head.subarray(end.at + end.length);
      if (rest.length) forward(rest);
    });
    child.on("close", async (code) => {
      if (!headersDone && !res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(`git http-backend failed (exit ${code}): ${stderr.trim()}\n`);
      } else {
        await git.beforeEnd?.().catch((error: unknown) => console.error(`[forge] after a push: ${error instanceof Error ? error.message : String(error)}`));
        res.end();
      }
      resolve();
    });
    res.on("close", () => {
      if (child.exitCode === null) child.kill();
    });
  });
}

/** Where the CGI header block ends (a blank line, CRLF or LF). */
function headerEnd(buf: Buffer): { at: number; length: number } | null {
  const crlf = buf.indexOf("\r\n\r\n");
  const lf = buf.indexOf("\n\n");
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { at: crlf, length: 4 };
  return lf === -1 ? null : { at: lf, length: 2 };
}

function writeCgiHead(res: ServerResponse, block: string): void {
  let status = 200;
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10) || 200;
    else res.setHeader(name, value);
  }
  res.writeHead(status);
}
