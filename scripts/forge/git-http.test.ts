/**
 * The forge's git over smart HTTP with real git: anonymous clones of public repositories,
 * installation tokens as Basic credentials for private ones and for every push
 * (issue 14, "A real forge for tests").
 */
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "./server";
import { admin, appJwt, appKeyPair, git, remote, workDir } from "./test-support";

const APP_ID = "77";
const keys = appKeyPair();
let forge: Forge;
let installationId: number;
const dirs: string[] = [];

beforeAll(async () => {
  forge = await startForge({ appId: APP_ID, publicKeyPem: keys.publicKeyPem });
  const repos = [
    { full_name: "acme/public", private: false, files: { "README.md": "# public\n" } },
    { full_name: "acme/private", private: true, files: { "src/main.txt": "hello\n" } },
    { full_name: "acme/other", private: true },
    { full_name: "acme/trunk", private: true, default_branch: "trunk" },
  ];
  for (const repo of repos) expect((await admin(forge.adminUrl, "POST", "/repos", repo)).status).toBe(201);
  installationId = (await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["public", "private", "other", "trunk"] })).json.id;
});
afterAll(async () => {
  await forge?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = workDir();
  dirs.push(dir);
  return dir;
}

async function mint(repositories: string[], permissions?: Record<string, string>, installation = installationId): Promise<string> {
  const res = await fetch(`${forge.apiUrl}/app/installations/${installation}/access_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${appJwt(keys.privateKey, { iss: APP_ID })}`, "content-type": "application/json" },
    body: JSON.stringify({ repositories, permissions }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

/** Clones, commits one file and pushes it to the default branch; → the pushed sha. */
async function commitAndPush(fullName: string, token: string, message: string, content: string | Buffer = "change\n") {
  const dir = join(tempDir(), "clone");
  await git(["clone", "--quiet", remote(forge.gitUrl, fullName, token), dir]);
  writeFileSync(join(dir, "change.bin"), content);
  await git(["add", "change.bin"], dir);
  await git(["commit", "--quiet", "-m", message], dir);
  await git(["push", "--quiet", "origin", "HEAD"], dir);
  return (await git(["rev-parse", "HEAD"], dir)).trim();
}

describe("clone", () => {
  it("FORGE: a public repository clones anonymously with its initial commit", async () => {
    const dir = join(tempDir(), "public");
    await git(["clone", "--quiet", remote(forge.gitUrl, "acme/public"), dir]);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("# public\n");
    expect((await git(["branch", "--show-current"], dir)).trim()).toBe("main");
  });

  it("FORGE: a private repository without a token is 401 with a Basic challenge", async () => {
    const res = await fetch(`${forge.gitUrl}/acme/private.git/info/refs?service=git-upload-pack`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
    await expect(git(["clone", "--quiet", remote(forge.gitUrl, "acme/private"), join(tempDir(), "p")])).rejects.toThrow(
      /could not read Username|Authentication failed/,
    );
  });

  it("FORGE: a private repository clones with a minted token, on its own default branch", async () => {
    const token = await mint(["private", "trunk"]);
    const dir = join(tempDir(), "private");
    await git(["clone", "--quiet", remote(forge.gitUrl, "acme/private", token), dir]);
    expect(readFileSync(join(dir, "src/main.txt"), "utf8")).toBe("hello\n");
    const trunk = join(tempDir(), "trunk");
    await git(["clone", "--quiet", remote(forge.gitUrl, "acme/trunk", token), trunk]);
    expect((await git(["branch", "--show-current"], trunk)).trim()).toBe("trunk");
  });

  it("FORGE: a token is refused for a private repository it was not limited to, and reads public ones", async () => {
    const token = await mint(["private"]);
    await expect(git(["clone", "--quiet", remote(forge.gitUrl, "acme/other", token), join(tempDir(), "o")])).rejects.toThrow(/Authentication failed|401/);
    await git(["clone", "--quiet", remote(forge.gitUrl, "acme/public", token), join(tempDir(), "pub")]);
    // git sends no credentials where none are asked for; a client that does gets them checked.
    const forged = await fetch(`${forge.gitUrl}/acme/public.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from("x-access-token:ghs_forged").toString("base64")}` },
    });
    expect(forged.status).toBe(401);
  });

  it("FORGE: a gzip request body (as git sends larger negotiations) is inflated", async () => {
    const body = gzipSync(Buffer.from("0014command=ls-refs\n0000"));
    const res = await fetch(`${forge.gitUrl}/acme/public.git/git-upload-pack`, {
      method: "POST",
      headers: { "content-type": "application/x-git-upload-pack-request", "content-encoding": "gzip", "git-protocol": "version=2" },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/[0-9a-f]{40} HEAD/);
  });
});

describe("push", () => {
  it("FORGE: a token with contents write pushes; the forge's log shows the commit", async () => {
    const token = await mint(["private"], { contents: "write" });
    // Over a megabyte: git streams it chunked, without a Content-Length.
    const sha = await commitAndPush("acme/private", token, "Add a change\n\nGuild-Run: run_1", randomBytes(1_500_000));
    const repo = await admin(forge.adminUrl, "GET", "/repos/acme/private");
    expect(repo.json.branches).toEqual([{ name: "main", sha }]);
    const commits = (await admin(forge.adminUrl, "GET", "/repos/acme/private/commits")).json.commits;
    expect(commits[0]).toMatchObject({ sha, message: "Add a change\n\nGuild-Run: run_1\n", author: { email: "tester@example.test" } });
    expect(commits).toHaveLength(2);
  });

  it("FORGE: pushing to a public repository needs a token too", async () => {
    const dir = join(tempDir(), "anon");
    await git(["clone", "--quiet", remote(forge.gitUrl, "acme/public"), dir]);
    await git(["commit", "--quiet", "--allow-empty", "-m", "anonymous"], dir);
    await expect(git(["push", "--quiet", "origin", "HEAD"], dir)).rejects.toThrow(/could not read Username|Authentication failed/);
    const token = await mint(["public"]);
    await git(["push", "--quiet", remote(forge.gitUrl, "acme/public", token), "HEAD"], dir);
    expect((await admin(forge.adminUrl, "GET", "/repos/acme/public/commits")).json.commits[0].message).toBe("anonymous\n");
  });

  it("FORGE: a token with contents read clones but its push is 403", async () => {
    const token = await mint(["other"], { contents: "read" });
    await expect(commitAndPush("acme/other", token, "read only")).rejects.toThrow(/403|denied/);
  });

  it("FORGE: an expired token is refused", async () => {
    await admin(forge.adminUrl, "PUT", "/token-ttl", { seconds: 0 });
    const token = await mint(["private"]);
    await admin(forge.adminUrl, "PUT", "/token-ttl", { seconds: 3600 });
    await expect(commitAndPush("acme/private", token, "too late")).rejects.toThrow(/Authentication failed|401/);
  });

  it("FORGE: a token of a revoked installation, or of a repository removed from it, is refused", async () => {
    const installation = (await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["private", "other"] })).json.id as number;
    const token = await mint(["private", "other"], undefined, installation);
    const dir = join(tempDir(), "kept");
    await git(["clone", "--quiet", remote(forge.gitUrl, "acme/other", token), dir]);
    expect((await admin(forge.adminUrl, "DELETE", `/installations/${installation}/repositories/acme/other`)).json.repositories).toEqual(["acme/private"]);
    await expect(git(["fetch", "--quiet", "origin"], dir)).rejects.toThrow(/Authentication failed|401/);
    await git(["ls-remote", remote(forge.gitUrl, "acme/private", token)]);
    await admin(forge.adminUrl, "DELETE", `/installations/${installation}`);
    await expect(git(["ls-remote", remote(forge.gitUrl, "acme/private", token)])).rejects.toThrow(/Authentication failed|401/);
  });

  it("FORGE: a ref outside the branches (a checkpoint) shows in the forge's refs only when pushed", async () => {
    const token = await mint(["trunk"]);
    const dir = join(tempDir(), "refs");
    await git(["clone", "--quiet", remote(forge.gitUrl, "acme/trunk", token), dir]);
    await git(["update-ref", "refs/guild/runs/r1/start", "HEAD"], dir);
    const before = (await admin(forge.adminUrl, "GET", "/repos/acme/trunk")).json.refs.map((r: { ref: string }) => r.ref);
    expect(before).toEqual(["refs/heads/trunk"]);
    await git(["push", "--quiet", "origin", "refs/guild/runs/r1/start"], dir);
    const after = (await admin(forge.adminUrl, "GET", "/repos/acme/trunk")).json.refs.map((r: { ref: string }) => r.ref);
    expect(after).toContain("refs/guild/runs/r1/start");
  });
});

describe("the address the boxes reach", () => {
  it("FORGE: serves git only, never the GitHub API or the admin API", async () => {
    const bridged = await startForge({ appId: APP_ID, publicKeyPem: keys.publicKeyPem, gitHost: "127.0.0.2" });
    try {
      expect(new URL(bridged.gitUrl).hostname).toBe("127.0.0.2");
      expect((await admin(bridged.adminUrl, "POST", "/repos", { full_name: "acme/site" })).json.clone_url).toBe(`${bridged.gitUrl}/acme/site.git`);
      const dir = join(tempDir(), "site");
      await git(["clone", "--quiet", remote(bridged.gitUrl, "acme/site"), dir]);
      expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("# acme/site\n");
      const base = new URL(bridged.gitUrl).origin;
      expect((await fetch(`${base}/__forge/tokens`)).status).toBe(404);
      expect((await fetch(`${base}/api/app`)).status).toBe(404);
    } finally {
      await bridged.close();
    }
  });
});
