/** What the forge's own tests share: an App key pair, App JWTs, real git, the admin API. */
import { execFile } from "node:child_process";
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);

export function appKeyPair(): { privateKey: KeyObject; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { privateKey, publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString() };
}

/** An RS256 App JWT with these claims (defaults: issued a minute ago, expiring in nine). */
export function appJwt(privateKey: KeyObject, claims: { iss: string | number; iat?: number; exp?: number }): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${part({ alg: "RS256", typ: "JWT" })}.${part({ iat: now - 60, exp: now + 540, ...claims })}`;
  return `${unsigned}.${sign("sha256", Buffer.from(unsigned), privateKey).toString("base64url")}`;
}

/** git with no user or system configuration and no prompt; rejects with git's stderr. */
export async function git(args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await exec("git", args, {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: tmpdir(),
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_TERMINAL_PROMPT: "0",
        GIT_AUTHOR_NAME: "Tester",
        GIT_AUTHOR_EMAIL: "tester@example.test",
        GIT_COMMITTER_NAME: "Tester",
        GIT_COMMITTER_EMAIL: "tester@example.test",
      },
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    throw new Error(String((error as { stderr?: string }).stderr ?? error));
  }
}

export function workDir(): string {
  return mkdtempSync(join(tmpdir(), "forge-test-"));
}

/** `http://x-access-token:<token>@host/git/<full_name>.git`, or anonymous without a token. */
export function remote(gitUrl: string, fullName: string, token?: string): string {
  const url = new URL(`${gitUrl}/${fullName}.git`);
  if (token) {
    url.username = "x-access-token";
    url.password = token;
  }
  return url.toString();
}

/**
 * Pushes `branch` to the repository: the default branch and `commits` new commits on top
 * (none: a branch level with it). Returns the branch's sha; the clone is removed.
 */
export async function pushBranch(gitUrl: string, fullName: string, token: string, branch: string, commits = 1): Promise<string> {
  const dir = workDir();
  try {
    await git(["clone", "--quiet", remote(gitUrl, fullName, token), dir]);
    await git(["checkout", "--quiet", "-b", branch], dir);
    for (let i = 0; i < commits; i++) {
      writeFileSync(join(dir, `${branch.replaceAll("/", "-")}-${i}.txt`), `change ${i}\n`);
      await git(["add", "--all"], dir);
      await git(["commit", "--quiet", "-m", `Change ${i} on ${branch}`], dir);
    }
    await git(["push", "--quiet", "origin", `HEAD:refs/heads/${branch}`], dir);
    return (await git(["rev-parse", "HEAD"], dir)).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function admin(adminUrl: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${adminUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

export { approveInstall, claimInstallation, claimState } from "./claim";

export interface ReceivedHook {
  headers: Record<string, string>;
  /** The exact body received. */
  body: string;
  json: any;
}

/**
 * A real HTTP server receiving webhooks, as the platform's door would: every request kept,
 * answered `status` (200 by default). `next(match)` resolves with the first received hook
 * matching, waiting for it when none has come yet.
 */
export async function hookReceiver(status = 200) {
  const { createServer } = await import("node:http");
  const received: ReceivedHook[] = [];
  const waiters: Array<{ match: (hook: ReceivedHook) => boolean; resolve: (hook: ReceivedHook) => void }> = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const body = Buffer.concat(parts).toString("utf8");
      const hook = { headers: req.headers as Record<string, string>, body, json: JSON.parse(body) };
      received.push(hook);
      for (const waiter of waiters.splice(0)) {
        if (waiter.match(hook)) waiter.resolve(hook);
        else waiters.push(waiter);
      }
      res.writeHead(receiver.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address() as { port: number };
  const receiver = {
    url: `http://127.0.0.1:${address.port}/api/github/webhooks`,
    status,
    received,
    /** The first hook received that matches, now or when it comes (rejects after `ms`). */
    next(match: (hook: ReceivedHook) => boolean, ms = 10_000): Promise<ReceivedHook> {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching webhook within ${ms} ms (got ${received.map((h) => h.headers["x-github-event"]).join(", ")})`)),
          ms,
        );
        const done = (hook: ReceivedHook) => {
          clearTimeout(timer);
          resolve(hook);
        };
        waiters.push({ match, resolve: done });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return receiver;
}

/** Whether a hook is `event` (and `action` when given). */
export const isEvent = (event: string, action?: string) => (hook: ReceivedHook) =>
  hook.headers["x-github-event"] === event && (action === undefined || hook.json.action === action);

/**
 * Commits `files` (path → text) on `branch` (made from the default branch when it does not
 * exist yet) and pushes it; returns the new sha. The clone is removed.
 */
export async function pushFiles(gitUrl: string, fullName: string, token: string, branch: string, files: Record<string, string>): Promise<string> {
  const { mkdirSync } = await import("node:fs");
  const { dirname } = await import("node:path");
  const dir = workDir();
  try {
    await git(["clone", "--quiet", remote(gitUrl, fullName, token), dir]);
    const exists = (await git(["ls-remote", "--heads", "origin", branch], dir)).trim() !== "";
    await git(["checkout", "--quiet", ...(exists ? [branch] : ["-b", branch])], dir);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    await git(["add", "--all"], dir);
    await git(["commit", "--quiet", "--allow-empty", "-m", `Change on ${branch}`], dir);
    await git(["push", "--quiet", "origin", `HEAD:refs/heads/${branch}`], dir);
    return (await git(["rev-parse", "HEAD"], dir)).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
