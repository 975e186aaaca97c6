/**
 * guilds-code's task commands with real git against a bare repository: the workspace's
 * preparation, pushes, the WIP snapshot and a hostile volume (TASK-013, TASK-017, TASK-022,
 * TASK-035, TASK-036).
 */
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleCode, plainGit, runCode, tempDir } from "./test-support";

let temp: Awaited<ReturnType<typeof tempDir>>;
let bundle: string;
let origin: string;
let remote: string;

const KEY = "APP-7";
const BRANCH = `factory/task/${KEY}`;
const WIP = `factory/wip/${KEY}`;

beforeAll(async () => {
  temp = await tempDir("guilds-code-task-");
  bundle = await bundleCode(temp.dir);
  origin = join(temp.dir, "origin.git");
  await plainGit(["init", "-q", "--bare", "-b", "main", origin]);
  const seed = join(temp.dir, "seed");
  await plainGit(["clone", "-q", origin, seed]);
  await writeFile(join(seed, "README.md"), "# app\n");
  await writeFile(join(seed, "doomed.txt"), "to be deleted\n");
  await writeFile(join(seed, ".gitignore"), "node_modules/\n");
  await plainGit(["add", "-A"], seed);
  await plainGit(["commit", "-qm", "base"], seed);
  await plainGit(["push", "-q", "origin", "HEAD:main"], seed);
  remote = `file://${origin}`;
}, 30_000);

afterAll(async () => {
  await temp?.remove();
});

const prepare = (dir: string, extra: string[] = []) =>
  runCode(bundle, ["task-prepare", "--dir", dir, "--remote", remote, "--branch", BRANCH, "--base", "main", "--wip", WIP, ...extra]);
const push = (dir: string) => runCode(bundle, ["task-push", "--dir", dir, "--branch", BRANCH, "--base", "main"]);
const finalize = (dir: string) => runCode(bundle, ["task-finalize", "--dir", dir, "--branch", BRANCH, "--base", "main", "--wip", WIP]);
const remoteRef = async (ref: string) => (await plainGit(["ls-remote", origin, `refs/heads/${ref}`])).split("\t")[0] || undefined;
const state = async (dir: string) => ({
  status: await plainGit(["status", "--porcelain", "--untracked-files=all"], dir),
  head: await plainGit(["rev-parse", "HEAD"], dir),
  branch: await plainGit(["symbolic-ref", "HEAD"], dir),
  staged: await plainGit(["diff", "--cached", "--name-status"], dir),
});

describe("guilds-code task commands", () => {
  it("TASK-036: a fresh prepare clones and creates the task branch from the base; a re-run answers the same", async () => {
    const dir = join(temp.dir, "data-fresh", "workspace");
    const first = await prepare(dir, ["--name", "Agent", "--email", "agent@example.test"]);
    expect(first.code, first.stderr).toBe(0);
    const main = await plainGit(["rev-parse", "main"], origin);
    const timings = {
      start_ms: expect.any(Number),
      workspace_ms: expect.any(Number),
      refs_ms: expect.any(Number),
      fetch_ms: expect.any(Number),
      checkout_ms: expect.any(Number),
    };
    expect(first.json).toEqual({ head: main, created: true, wip_applied: false, wip_conflicts: [], cloned: true, seeded: false, sanitized: [], timings });
    expect(await plainGit(["symbolic-ref", "HEAD"], dir)).toBe(`refs/heads/${BRANCH}`);
    expect(await plainGit(["config", "remote.origin.url"], dir)).toBe(remote);
    expect(await plainGit(["config", "user.email"], dir)).toBe("agent@example.test");
    expect(await plainGit(["status", "--porcelain"], dir)).toBe("");
    const again = await prepare(dir, ["--name", "Agent", "--email", "agent@example.test"]);
    expect(again.json).toEqual({ ...first.json, cloned: false, timings });
  });

  it("TASK-036: a workspace another task of the same repository prepared (a repository seed) is fetched into, not cloned, and keeps none of that task's refs", async () => {
    // Two tasks' remotes of one repository, as the gateway names them: they differ by task alone.
    const remoteOf = async (task: string) => {
      const path = join(temp.dir, "gateway", "tasks", task, "acme");
      await mkdir(path, { recursive: true });
      await symlink(origin, join(path, "app.git"));
      return `file://${path}/app.git`;
    };
    const first = { remote: await remoteOf("task-one"), branch: "factory/task/APP-1", wip: "factory/wip/APP-1" };
    const second = { remote: await remoteOf("task-two"), branch: "factory/task/APP-2", wip: "factory/wip/APP-2" };
    const prepareAs = (dir: string, task: typeof first) =>
      runCode(bundle, ["task-prepare", "--dir", dir, "--remote", task.remote, "--branch", task.branch, "--base", "main", "--wip", task.wip]);
    const seed = join(temp.dir, "data-seed", "workspace");
    expect((await prepareAs(seed, first)).json).toMatchObject({ cloned: true, seeded: false });
    const objects = join(seed, ".git", "objects");
    const packed = (await plainGit(["count-objects", "-v"], seed)).match(/^(count|in-pack): (\d+)$/gm);

    // The seed (the git directory alone) restored as the second task's volume: its objects
    // stay, its refs go, and the work tree is checked out.
    const dir = join(temp.dir, "data-seeded", "workspace");
    await mkdir(dir, { recursive: true });
    await cp(join(seed, ".git"), join(dir, ".git"), { recursive: true });
    const prepared = await prepareAs(dir, second);
    expect(prepared.code, prepared.stderr).toBe(0);
    expect(prepared.json).toMatchObject({ cloned: false, seeded: true, created: true, head: await plainGit(["rev-parse", "main"], origin) });
    expect(await plainGit(["config", "remote.origin.url"], dir)).toBe(second.remote);
    expect(await plainGit(["symbolic-ref", "HEAD"], dir)).toBe(`refs/heads/${second.branch}`);
    expect((await plainGit(["for-each-ref", "--format=%(refname)"], dir)).split("\n")).toEqual([`refs/heads/${second.branch}`, "refs/remotes/origin/main"]);
    expect(await plainGit(["status", "--porcelain"], dir)).toBe("");
    expect(await readFile(join(dir, "README.md"), "utf8")).toBe("# app\n");
    expect((await plainGit(["count-objects", "-v"], dir)).match(/^(count|in-pack): (\d+)$/gm)).toEqual(packed);
    expect(existsSync(objects)).toBe(true);

    // Another repository's workspace is not a seed: it is cloned anew.
    const other = join(temp.dir, "data-other", "workspace");
    await mkdir(join(other, ".."), { recursive: true });
    await cp(seed, other, { recursive: true });
    await plainGit(["config", "remote.origin.url", "file:///elsewhere/tasks/task-one/acme/other.git"], other);
    expect((await prepareAs(other, second)).json).toMatchObject({ cloned: true, seeded: false });
  });

  it("TASK-022: finalize pushes the branch and a WIP snapshot of what is not committed; HEAD, the branch and the index stay as they were", async () => {
    const dir = join(temp.dir, "data-a", "workspace");
    expect((await prepare(dir)).code).toBe(0);
    await writeFile(join(dir, "feature.txt"), "committed work\n");
    await plainGit(["add", "feature.txt"], dir);
    await plainGit(["commit", "-qm", "feature"], dir);
    await writeFile(join(dir, "README.md"), "# app\nedited, not staged\n");
    await writeFile(join(dir, "staged.txt"), "staged only\n");
    await plainGit(["add", "staged.txt"], dir);
    await writeFile(join(dir, "notes.txt"), "untracked\n");
    await rm(join(dir, "doomed.txt"));
    await mkdir(join(dir, "node_modules"));
    await writeFile(join(dir, "node_modules/dep.js"), "ignored\n");
    const before = await state(dir);

    const done = await finalize(dir);
    expect(done.code, done.stderr).toBe(0);
    expect(done.json).toMatchObject({
      pushed: true,
      head: before.head,
      ahead: 1,
      dirty: true,
      wip: { sha: expect.stringMatching(/^[0-9a-f]{40}$/), files: 4 },
    });
    expect(await state(dir)).toEqual(before);
    expect(await remoteRef(BRANCH)).toBe(before.head);
    const wip = done.json.wip.sha as string;
    expect(await remoteRef(WIP)).toBe(wip);
    expect(await plainGit(["rev-parse", `${wip}^`], origin)).toBe(before.head);
    expect((await plainGit(["ls-tree", "-r", "--name-only", wip], origin)).split("\n").sort()).toEqual([
      ".gitignore",
      "README.md",
      "feature.txt",
      "notes.txt",
      "staged.txt",
    ]);
    // Nothing new: the branch is not pushed again.
    expect((await push(dir)).json).toMatchObject({ pushed: false, head: before.head, ahead: 1 });
  });

  it("TASK-035: the next run's workspace comes from the task branch and the WIP snapshot: changes unstaged, new files untracked, deletions kept", async () => {
    const dir = join(temp.dir, "data-b", "workspace");
    const ready = await prepare(dir);
    expect(ready.code, ready.stderr).toBe(0);
    expect(ready.json).toMatchObject({ head: await remoteRef(BRANCH), created: false, wip_applied: true, wip_conflicts: [], cloned: true });
    expect(await readFile(join(dir, "README.md"), "utf8")).toBe("# app\nedited, not staged\n");
    expect(await readFile(join(dir, "notes.txt"), "utf8")).toBe("untracked\n");
    expect(existsSync(join(dir, "doomed.txt"))).toBe(false);
    expect(existsSync(join(dir, "node_modules"))).toBe(false);
    expect(await plainGit(["diff", "--cached", "--name-only"], dir)).toBe("");
    expect((await plainGit(["status", "--porcelain"], dir)).split("\n").sort()).toEqual([" D doomed.txt", " M README.md", "?? notes.txt", "?? staged.txt"]);
  });

  it("TASK-035: the cached checkout keeps its ignored files and local commits not yet pushed; WIP changes merge onto them", async () => {
    const dir = join(temp.dir, "data-a", "workspace");
    await plainGit(["stash", "-u", "-q"], dir);
    await writeFile(join(dir, "later.txt"), "a commit the push never delivered\n");
    await plainGit(["add", "later.txt"], dir);
    await plainGit(["commit", "-qm", "later"], dir);
    const local = await plainGit(["rev-parse", "HEAD"], dir);
    const ready = await prepare(dir);
    expect(ready.json).toMatchObject({ head: local, wip_applied: true, wip_conflicts: [], cloned: false });
    expect(await readFile(join(dir, "node_modules/dep.js"), "utf8")).toBe("ignored\n");
    expect(await readFile(join(dir, "later.txt"), "utf8")).toBe("a commit the push never delivered\n");
    expect(await readFile(join(dir, "notes.txt"), "utf8")).toBe("untracked\n");
    expect(await plainGit(["diff", "--cached", "--name-only"], dir)).toBe("");
  });

  it("TASK-022: a clean work tree deletes the remote WIP ref, and the next prepare applies none", async () => {
    const dir = join(temp.dir, "data-a", "workspace");
    await plainGit(["add", "-A"], dir);
    await plainGit(["commit", "-qm", "everything"], dir);
    const done = await finalize(dir);
    expect(done.json).toMatchObject({ pushed: true, dirty: false, wip: null, ahead: 3 });
    expect(await remoteRef(WIP)).toBeUndefined();
    const fresh = await prepare(join(temp.dir, "data-c", "workspace"));
    expect(fresh.json).toMatchObject({ head: done.json.head, wip_applied: false, created: false });
    expect((await prepare(dir)).json).toMatchObject({ head: done.json.head, wip_applied: false });
  });

  it("TASK-017: a push the remote refuses is an answer with git's reason, not a failure", async () => {
    const dir = join(temp.dir, "data-a", "workspace");
    await plainGit(["config", "receive.denyNonFastForwards", "true"], origin);
    try {
      await plainGit(["commit", "--amend", "-qm", "rewritten"], dir);
      const refused = await push(dir);
      expect(refused.code, refused.stderr).toBe(0);
      expect(refused.json).toMatchObject({ pushed: false, refused: expect.stringMatching(/non-fast-forward/) });
      expect(refused.json.output).toContain("rejected");
    } finally {
      await plainGit(["config", "--unset", "receive.denyNonFastForwards"], origin);
    }
  });

  it("TASK-013: usage errors exit 2 and run nothing", async () => {
    for (const args of [
      ["task-push", "--dir", "relative/dir", "--branch", BRANCH, "--base", "main"],
      ["task-push", "--dir", "/data/../etc", "--branch", BRANCH, "--base", "main"],
      ["task-push", "--dir", "/data/workspace", "--branch", "--upload-pack=x", "--base", "main"],
      ["task-push", "--dir", "/data/workspace", "--branch", "a..b", "--base", "main"],
      ["task-prepare", "--dir", "/data/workspace", "--remote", "ext::sh -c x", "--branch", BRANCH, "--base", "main", "--wip", WIP],
      ["task-finalize", "--dir", "/data/workspace", "--branch", BRANCH, "--base", "main"],
    ]) {
      const run = await runCode(bundle, args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.json.error).toBe("usage");
    }
  });
});
