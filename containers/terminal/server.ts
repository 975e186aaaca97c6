/**
 * The web terminal (SBX-024/025): a shell on a pseudo-terminal per WebSocket, served only
 * under /t/<secret>/ (the page, its scripts and `ws`); every other path is 404, WebSocket
 * upgrades included, so the port refuses anything that did not come through the proxy that
 * knows the secret (SBX-026).
 *
 * Messages from the page are JSON: `{"type":"input","data"}` and `{"type":"resize","cols","rows"}`;
 * the shell's output goes back as text frames.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { spawn } from "@lydell/node-pty";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import { TERMINAL_PAGE } from "./page";

export interface TerminalOptions {
  /** The path segment after /t/ that every request must carry. */
  secret: string;
  /** The shell and its arguments, e.g. ["bash", "-l"]. */
  shell: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A node_modules folder holding @xterm/xterm and @xterm/addon-fit. */
  assetsDir: string;
}

const ASSETS: Record<string, { file: string; type: string }> = {
  "/xterm.js": { file: "@xterm/xterm/lib/xterm.js", type: "text/javascript; charset=utf-8" },
  "/xterm.css": { file: "@xterm/xterm/css/xterm.css", type: "text/css; charset=utf-8" },
  "/addon-fit.js": { file: "@xterm/addon-fit/lib/addon-fit.js", type: "text/javascript; charset=utf-8" },
};

const MAX_SIZE = 1000;
const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * The rest of a path under /t/<secret>, or undefined when it is not under the secret.
 *
 * @example underSecret("/t/abc/ws", "abc") // "/ws"
 * @example underSecret("/t/abc", "abc")    // ""
 * @example underSecret("/t/abd/", "abc")   // undefined
 */
export function underSecret(pathname: string, secret: string): string | undefined {
  const match = /^\/t\/([^/]+)(\/.*)?$/.exec(pathname);
  if (!match) return undefined;
  if (!timingSafeEqual(digest(match[1]!), digest(secret))) return undefined;
  return match[2] ?? "";
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
  res.end("not found\n");
}

export function createTerminalServer(options: TerminalOptions): Server {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://terminal");
    const rest = underSecret(url.pathname, options.secret);
    if (rest === undefined || (req.method !== "GET" && req.method !== "HEAD")) return notFound(res);
    if (rest === "") {
      // Relative, so it also holds behind a proxy that mounts the terminal elsewhere.
      res.writeHead(301, { location: `${url.pathname.split("/").at(-1)}/` });
      return void res.end();
    }
    if (rest === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      return void res.end(TERMINAL_PAGE);
    }
    const asset = ASSETS[rest];
    if (!asset) return notFound(res);
    const body = await readFile(`${options.assetsDir}/${asset.file}`);
    res.writeHead(200, { "content-type": asset.type, "content-length": body.length });
    res.end(body);
  }

  function session(socket: WebSocket): void {
    const [command, ...args] = options.shell;
    const shell = spawn(command!, args, {
      name: "xterm-256color",
      cols: 80,
      rows: 24,
      cwd: options.cwd,
      env: { ...options.env, TERM: "xterm-256color" },
    });
    shell.onData((data) => socket.send(data));
    shell.onExit(() => socket.close(1000, "shell exited"));
    socket.on("message", (raw: RawData) => {
      let message: { type?: unknown; data?: unknown; cols?: unknown; rows?: unknown };
      try {
        message = JSON.parse(raw.toString());
      } catch {
        return;
      }
      if (message.type === "input" && typeof message.data === "string") shell.write(message.data);
      const { cols, rows } = message;
      if (message.type === "resize" && Number.isInteger(cols) && Number.isInteger(rows)) {
        shell.resize(Math.min(Math.max(cols as number, 1), MAX_SIZE), Math.min(Math.max(rows as number, 1), MAX_SIZE));
      }
    });
    // Closing the page ends its shell, as closing a terminal window does.
    socket.on("close", () => {
      try {
        shell.kill("SIGHUP");
      } catch {
        // already gone
      }
    });
  }

  const server = createServer((req, res) => {
    route(req, res).catch(() => {
      if (!res.headersSent) notFound(res);
      else res.destroy();
    });
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? "/", "http://terminal");
    if (underSecret(url.pathname, options.secret) !== "/ws") {
      socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(req, socket, head, session);
  });
  return server;
}
