/**
 * A task's own git commands send the run's token with their first request (ISSUE-34): real git
 * against a loopback server that records what each request carried.
 */
import { execFile } from "node:child_process";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitTokenKey } from "../../core/repos/git-token-key";
import { credentialEnv } from "./task-git";

const TOKEN = "run-credential-123";
let server: Server;
let remote: string;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    // Refused as the gateway refuses a request without the token; with it, "not a repository".
    if (!req.headers.authorization) res.writeHead(401, { "www-authenticate": 'Basic realm="git"' }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  remote = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/git/acme/app.git`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const lookup = (key: string) => (key === gitTokenKey(remote) ? { token: TOKEN, expires_at: "" } : undefined);

describe("the run's token on git's first request", () => {
  it("OP-REPO-1 / ISSUE-34: git run with credentialEnv sends Basic x-access-token:<token> at once, without a 401 first", async () => {
    seen.length = 0;
    const env = { PATH: process.env.PATH ?? "", HOME: "/nonexistent", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
    await promisify(execFile)("git", ["ls-remote", remote], { env: { ...env, ...credentialEnv(remote, lookup) } }).catch(() => undefined);
    expect(seen.length).toBeGreaterThan(0);
    const expected = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}`;
    expect(seen[0]!.authorization).toBe(expected);
    expect(seen.every((h) => h.authorization === expected)).toBe(true);
  });

  it("OP-REPO-1 / ISSUE-34: no token for the remote (or another remote's token) adds nothing; git asks as before", () => {
    expect(credentialEnv(remote, () => undefined)).toEqual({});
    expect(credentialEnv(remote.replace("app.git", "other.git"), lookup)).toEqual({});
    expect(credentialEnv("file:///srv/app.git", lookup)).toEqual({});
  });

  it("OP-REPO-1 / ISSUE-34: the header is scoped by git to that remote's URL, so no other host receives it", async () => {
    const env = credentialEnv(remote, lookup);
    expect(env.GIT_CONFIG_KEY_0).toBe(`http.${remote}.extraHeader`);
    seen.length = 0;
    const other = remote.replace("/git/acme/app.git", "/git/acme/elsewhere.git");
    const base = { PATH: process.env.PATH ?? "", HOME: "/nonexistent", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
    await promisify(execFile)("git", ["ls-remote", other], { env: { ...base, ...env } }).catch(() => undefined);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.map((h) => h.authorization)).toEqual(seen.map(() => undefined));
  });
});
