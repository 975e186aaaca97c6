/**
 * The git gateway with real git in front of it (a node:http server adapting requests to the
 * handler, as the Container's outbound handler does in workerd) and the local forge behind it.
 */
import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type GatewayFixture, gatewayFixture } from "../../scripts/forge/gateway-fixture";
import { git, remote, workDir } from "../../scripts/forge/test-support";

let fx: GatewayFixture;
const dirs: string[] = [];

beforeAll(async () => {
  fx = await gatewayFixture({ account: "acme", repos: { app: { "README.md": "# app\n", "src/main.txt": "hello\n" }, other: {} } });
});
afterAll(async () => {
  await fx?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  fx.grant.allowForcePush = false;
});

function tempDir(): string {
  const dir = workDir();
  dirs.push(dir);
  return dir;
}

async function cloneThroughGateway(): Promise<string> {
  const dir = join(tempDir(), "box");
  await git(["clone", "--quiet", fx.boxRemote(), dir]);
  return dir;
}

async function commit(dir: string, file: string, content: string): Promise<string> {
  writeFileSync(join(dir, file), content);
  await git(["add", file], dir);
  await git(["commit", "--quiet", "-m", `change ${file}`], dir);
  return (await git(["rev-parse", "HEAD"], dir)).trim();
}

/** git push's stderr (it fails on a refusal). */
const pushFails = (dir: string, ...args: string[]) =>
  git(["push", "origin", ...args], dir).then(
    (out) => {
      throw new Error(`push succeeded: ${out}`);
    },
    (error: Error) => error.message,
  );

describe("the gateway's credential", () => {
  it("TASK-014: the box clones and fetches through the gateway with its run credential; the forge credential never reaches it", async () => {
    const dir = await cloneThroughGateway();
    expect((await git(["show", "HEAD:src/main.txt"], dir)).trim()).toBe("hello");
    // Someone else moves main on the forge; the box fetches it through the gateway.
    const direct = join(tempDir(), "direct");
    await git(["clone", "--quiet", remote(fx.forge.gitUrl, "acme/app", fx.grant.token), direct]);
    const moved = await commit(direct, "other.txt", "from elsewhere\n");
    await git(["push", "--quiet", "origin", "HEAD:main"], direct);
    await git(["fetch", "--quiet", "origin"], dir);
    expect((await git(["rev-parse", "origin/main"], dir)).trim()).toBe(moved);
    // Protocol v2 negotiation goes through as well.
    await git(["-c", "protocol.version=2", "ls-remote", fx.boxRemote()], dir);
    expect(fx.received()).toContain("application/x-git-upload-pack-result");
    expect(fx.received()).not.toContain(fx.grant.token);
    expect(fx.received()).not.toContain(btoa(`x-access-token:${fx.grant.token}`));
    expect(await git(["config", "--get", "remote.origin.url"], dir)).not.toContain(fx.grant.token);
  });

  it("TASK-014: a wrong or missing credential is 401 with a Basic challenge; another repository's path is 403; anything else 404", async () => {
    const base = `${fx.gateway.url}/tasks/${fx.taskId}`;
    const basic = (password: string) => ({ authorization: `Basic ${btoa(`x:${password}`)}` });
    const none = await fetch(`${base}/acme/app.git/info/refs?service=git-upload-pack`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect((await fetch(`${base}/acme/app.git/info/refs?service=git-upload-pack`, { headers: basic("wrong") })).status).toBe(401);
    await expect(git(["clone", "--quiet", fx.boxRemote("acme/app", "wrong"), join(tempDir(), "x")])).rejects.toThrow(/Authentication failed|401/);
    expect((await fetch(`${base}/acme/other.git/info/refs?service=git-upload-pack`, { headers: basic(fx.credential) })).status).toBe(403);
    await expect(git(["clone", "--quiet", fx.boxRemote("acme/other"), join(tempDir(), "y")])).rejects.toThrow(/403/);
    for (const path of [
      `${base}/acme/app.git/info/refs`,
      `${base}/acme/app.git/HEAD`,
      `${base}/acme/app.git/objects/info/packs`,
      `${fx.gateway.url}/git/acme/app.git/info/refs?service=git-upload-pack`,
      `${fx.gateway.url}/tasks/${fx.taskId}/acme/app/info/refs?service=git-upload-pack`,
    ]) {
      expect((await fetch(path, { headers: basic(fx.credential) })).status, path).toBe(404);
    }
  });

  it("TASK-017: a hostile receive-pack body is a clean refusal, never a server error", async () => {
    const url = `${fx.gateway.url}/tasks/${fx.taskId}/acme/app.git/git-receive-pack`;
    const headers = { authorization: `Basic ${btoa(`x:${fx.credential}`)}`, "content-type": "application/x-git-receive-pack-request" };
    const a = "a".repeat(40);
    for (const body of ["zzzz", "ffff", "0003", "00", `0067${a} ${a} refs/heads/factory/task/APP-1\0report-status`, "x".repeat(200_000)]) {
      const res = await fetch(url, { method: "POST", headers, body });
      expect(res.status, body.slice(0, 20)).toBe(400);
      expect(await res.text()).toMatch(/could not be read/);
    }
    // A command list that parses but whose pack is garbage: refused in git's report, the forge untouched.
    const before = await fx.forgeRefs();
    const line = `${a} ${"b".repeat(40)} refs/heads/factory/task/APP-1\0report-status\n`;
    const list = `${(line.length + 4).toString(16).padStart(4, "0")}${line}0000`;
    const res = await fetch(url, { method: "POST", headers, body: `${list}PACK-garbage` });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/ng refs\/heads\/factory\/task\/APP-1 the pushed pack could not be read/);
    expect(await fx.forgeRefs()).toEqual(before);
    expect(fx.refusals.splice(0)).toHaveLength(1);
  });
});

describe("push checks", () => {
  it("TASK-017: a push to the task branch is accepted and on the forge; a later fast-forward too, also one over history only the forge has", async () => {
    const dir = await cloneThroughGateway();
    const first = await commit(dir, "a.txt", "one\n");
    await git(["push", "--quiet", "origin", "HEAD:refs/heads/factory/task/APP-1"], dir);
    expect((await fx.forgeRefs())["refs/heads/factory/task/APP-1"]).toBe(first);
    // Over a megabyte: git probes with an empty request first, then streams the pack chunked.
    writeFileSync(join(dir, "big.bin"), randomBytes(1_500_000));
    await git(["add", "big.bin"], dir);
    const second = await commit(dir, "a.txt", "two\n");
    await git(["push", "--quiet", "origin", "HEAD:refs/heads/factory/task/APP-1"], dir);
    expect((await fx.forgeRefs())["refs/heads/factory/task/APP-1"]).toBe(second);
    // Another push puts a child of the task branch on the forge (the WIP ref); the box builds on it:
    // the pack holds the new commit only, the walk leaves it at that child, and the forge's
    // compare says the task branch's tip is below it.
    const direct = join(tempDir(), "direct");
    await git(["clone", "--quiet", remote(fx.forge.gitUrl, "acme/app", fx.grant.token), direct]);
    await git(["fetch", "--quiet", "origin", "refs/heads/factory/task/APP-1"], direct);
    await git(["reset", "--quiet", "--hard", "FETCH_HEAD"], direct);
    const child = await commit(direct, "child.txt", "child\n");
    await git(["push", "--quiet", "origin", "HEAD:refs/heads/factory/wip/APP-1"], direct);
    await git(["fetch", "--quiet", "origin", "refs/heads/factory/wip/APP-1"], dir);
    await git(["reset", "--quiet", "--hard", "FETCH_HEAD"], dir);
    fx.asked.length = 0;
    const third = await commit(dir, "b.txt", "three\n");
    await git(["push", "--quiet", "origin", "HEAD:refs/heads/factory/task/APP-1"], dir);
    expect((await fx.forgeRefs())["refs/heads/factory/task/APP-1"]).toBe(third);
    expect(fx.asked).toEqual([[second, child]]);
    expect(fx.refusals).toEqual([]);
  });

  it("TASK-017: pushes to another branch or to the base branch are refused with git's own report; the forge is unchanged", async () => {
    const dir = await cloneThroughGateway();
    await commit(dir, "c.txt", "not allowed\n");
    const before = await fx.forgeRefs();
    const toMain = await pushFails(dir, "HEAD:main");
    expect(toMain).toMatch(/! \[remote rejected\] HEAD -> main \(the base branch is never pushed to; push factory\/task\/APP-1\)/);
    const toOther = await pushFails(dir, "HEAD:refs/heads/feature");
    expect(toOther).toMatch(/\[remote rejected\] HEAD -> feature \(only factory\/task\/APP-1 and factory\/wip\/APP-1 may be pushed\)/);
    // One refused ref refuses the whole push.
    const mixed = await pushFails(dir, "+HEAD:refs/heads/factory/wip/APP-1", "HEAD:refs/tags/v1");
    expect(mixed).toMatch(/\[remote rejected\] HEAD -> factory\/wip\/APP-1 \(atomic push failure\)/);
    expect(await fx.forgeRefs()).toEqual(before);
    expect(fx.refusals.map((e) => e.refs.map((r) => r.ref))).toEqual([
      ["refs/heads/main"],
      ["refs/heads/feature"],
      ["refs/heads/factory/wip/APP-1", "refs/tags/v1"],
    ]);
    expect(fx.refusals.every((e) => e.taskId === fx.taskId && e.fullName === "acme/app")).toBe(true);
    fx.refusals.length = 0;
  });

  it("TASK-017: a force push of rewritten task history is refused unless the task allows it; the WIP ref is rewritten freely", async () => {
    const dir = await cloneThroughGateway();
    await git(["fetch", "--quiet", "origin", "refs/heads/factory/task/APP-1"], dir);
    await git(["reset", "--quiet", "--hard", "FETCH_HEAD"], dir);
    const before = await fx.forgeRefs();
    await git(["reset", "--quiet", "--hard", "HEAD~1"], dir);
    const rewritten = await commit(dir, "d.txt", "rewritten\n");
    const refused = await pushFails(dir, "--force", "HEAD:refs/heads/factory/task/APP-1");
    expect(refused).toMatch(/\[remote rejected\] HEAD -> factory\/task\/APP-1 \(non-fast-forward: this task does not allow force pushes/);
    expect(await fx.forgeRefs()).toEqual(before);
    expect(fx.refusals).toHaveLength(1);
    fx.grant.allowForcePush = true;
    await git(["push", "--quiet", "--force", "origin", "HEAD:refs/heads/factory/task/APP-1"], dir);
    expect((await fx.forgeRefs())["refs/heads/factory/task/APP-1"]).toBe(rewritten);
    fx.grant.allowForcePush = false;
    // The WIP ref: created, replaced by unrelated history, deleted.
    const wip = "refs/heads/factory/wip/APP-1";
    const snapshot = await commit(dir, "wip.txt", "one\n");
    await git(["push", "--quiet", "origin", `HEAD:${wip}`], dir);
    await git(["checkout", "--quiet", "--orphan", "again"], dir);
    const unrelated = await commit(dir, "wip.txt", "two\n");
    expect(unrelated).not.toBe(snapshot);
    await git(["push", "--quiet", "--force", "origin", `HEAD:${wip}`], dir);
    expect((await fx.forgeRefs())[wip]).toBe(unrelated);
    await git(["push", "--quiet", "origin", `:${wip}`], dir);
    expect((await fx.forgeRefs())[wip]).toBeUndefined();
    // Nor is the task branch deleted.
    expect(await pushFails(dir, ":refs/heads/factory/task/APP-1")).toMatch(/\[remote rejected\] factory\/task\/APP-1 \(the task branch may not be deleted\)/);
    expect(fx.received()).not.toContain(fx.grant.token);
  });
});
