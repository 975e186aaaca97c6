/**
 * Test support for the git tooling in the images: bare repositories on this machine served over
 * smart HTTP by `git http-backend` (CGI), with HTTP Basic auth on the private ones, listening
 * where boxes reach the host. Every Authorization header it sees is kept, so tests can tell
 * which credentials git sent.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface GitServer {
  /** `http://<gateway>:<port>/git`, as a box reaches it. */
  base: string;
  root: string;
  /** Authorization headers received, in order (undefined: none sent). */
  seen: Array<string | undefined>;
  /** A bare repository `owner/name` with one commit on main; private ones need `token`. */
  createRepo(fullName: string, options?: { private?: boolean; files?: Record<string, string> }): void;
  /** Every `git log` subject and body of a bare repository's refs, and its ref names. */
  git(fullName: string, args: string[]): string;
  close(): Promise<void>;
}

const IDENTITY = ["-c", "user.name=Forge", "-c", "user.email=forge@example.test"];

/** Starts the server on 0.0.0.0; `gateway` is the host address boxes use. Paths under /hang/ never answer. */
export async function startGitServer(gateway: string, token: string): Promise<GitServer> {
  const root = mkdtempSync(join(tmpdir(), "guilds-git-server-"));
  const privateRepos = new Set<string>();
  const seen: Array<string | undefined> = [];
  const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname.startsWith("/hang/")) return;
    const match = /^\/git\/([^/]+\/[^/]+)\.git(\/.*)$/.exec(url.pathname);
    if (!match) return void res.writeHead(404).end();
    seen.push(req.headers.authorization);
    if (privateRepos.has(match[1]!) && req.headers.authorization !== expected) {
      return void res.writeHead(401, { "www-authenticate": 'Basic realm="test"' }).end();
    }
    const cgi = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: `/${match[1]}.git${match[2]}`,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? "GET",
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        REMOTE_USER: "x-access-token",
        REMOTE_ADDR: req.socket.remoteAddress ?? "",
        GIT_HTTP_MAX_REQUEST_BUFFER: "100M",
        ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] } : {}),
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString().split("\r\n")) {
        const [name, ...value] = line.split(":");
        if (name!.toLowerCase() === "status") status = Number.parseInt(value.join(":").trim(), 10);
        else res.setHeader(name!, value.join(":").trim());
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on("end", () => res.end());
  });
  server.listen(0, "0.0.0.0");
  await new Promise((r) => server.once("listening", r));
  const port = (server.address() as { port: number }).port;
  const run = (args: string[], cwd?: string) => execFileSync("git", [...IDENTITY, ...args], { cwd, encoding: "utf8" });
  return {
    base: `http://${gateway}:${port}/git`,
    root,
    seen,
    createRepo(fullName, options = {}) {
      const bare = join(root, `${fullName}.git`);
      mkdirSync(bare, { recursive: true });
      run(["init", "-q", "--bare", "-b", "main", bare]);
      const seed = mkdtempSync(join(tmpdir(), "guilds-git-seed-"));
      run(["init", "-q", "-b", "main", seed]);
      for (const [name, text] of Object.entries(options.files ?? { "README.md": `# ${fullName}\n` })) writeFileSync(join(seed, name), text);
      run(["add", "-A"], seed);
      run(["commit", "-q", "-m", "Initial commit"], seed);
      run(["push", "-q", bare, "main"], seed);
      rmSync(seed, { recursive: true, force: true });
      if (options.private) privateRepos.add(fullName);
    },
    git: (fullName, args) => run(["-C", join(root, `${fullName}.git`), ...args]),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        rmSync(root, { recursive: true, force: true });
      }),
  };
}
