/**
 * A hostile task volume (TASK-013): hooks, fsmonitor, an ssh command, filters, includes and
 * links in the workspace's `.git` that plain git would run or follow. The platform's steps
 * run none of them; each trap is first shown to fire under plain git.
 */
import { existsSync, lstatSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bundleCode, plainGit, runCode, tempDir } from "./test-support";

let temp: Awaited<ReturnType<typeof tempDir>>;
let bundle: string;
let origin: string;
let remote: string;
let markers: string;

const BRANCH = "factory/task/APP-9";
const WIP = "factory/wip/APP-9";

beforeAll(async () => {
  temp = await tempDir("guilds-code-hostile-");
  bundle = await bundleCode(temp.dir);
  origin = join(temp.dir, "origin.git");
  markers = join(temp.dir, "markers");
  await mkdir(markers);
  await plainGit(["init", "-q", "--bare", "-b", "main", origin]);
  const seed = join(temp.dir, "seed");
  await plainGit(["clone", "-q", origin, seed]);
  await writeFile(join(seed, "README.md"), "# app\n");
  await plainGit(["add", "-A"], seed);
  await plainGit(["commit", "-qm", "base"], seed);
  await plainGit(["push", "-q", "origin", "HEAD:main"], seed);
  remote = `file://${origin}`;
}, 30_000);

afterAll(async () => {
  await temp?.remove();
});

beforeEach(async () => {
  await rm(markers, { recursive: true, force: true });
  await mkdir(markers);
});

const prepare = (dir: string) => runCode(bundle, ["task-prepare", "--dir", dir, "--remote", remote, "--branch", BRANCH, "--base", "main", "--wip", WIP]);
const finalize = (dir: string) => runCode(bundle, ["task-finalize", "--dir", dir, "--branch", BRANCH, "--base", "main", "--wip", WIP]);
const fired = () => readdir(markers);

/** A script that leaves a marker named `name` (a filter's passes its input through). */
async function trap(name: string, filter = false): Promise<string> {
  const path = join(temp.dir, "traps", name);
  await mkdir(join(temp.dir, "traps"), { recursive: true });
  await writeFile(path, `#!/bin/sh\ntouch '${join(markers, name)}'\n${filter ? "cat\n" : ""}`);
  await chmod(path, 0o755);
  return path;
}

/** Hooks, configuration and attributes in `gitDir` that run a trap whenever plain git would. */
async function arm(gitDir: string): Promise<void> {
  await mkdir(join(gitDir, "hooks"), { recursive: true });
  for (const hook of ["post-checkout", "pre-push", "reference-transaction", "post-index-change", "pre-commit"]) {
    await writeFile(join(gitDir, "hooks", hook), await readFile(await trap(`hook-${hook}`)));
    await chmod(join(gitDir, "hooks", hook), 0o755);
  }
  const hooksPath = join(temp.dir, "evil-hooks");
  await mkdir(hooksPath, { recursive: true });
  await writeFile(join(hooksPath, "post-checkout"), await readFile(await trap("hookspath-post-checkout")));
  await chmod(join(hooksPath, "post-checkout"), 0o755);
  const included = join(temp.dir, "included.gitconfig");
  await writeFile(included, `[core]\n\tpager = ${await trap("included-pager")}\n`);
  await writeFile(
    join(gitDir, "config"),
    [
      "[core]",
      "\trepositoryformatversion = 0",
      "\tbare = false",
      `\tfsmonitor = ${await trap("fsmonitor")}`,
      `\thooksPath = ${hooksPath}`,
      `\tsshCommand = ${await trap("ssh")}`,
      `\teditor = ${await trap("editor")}`,
      `\tattributesFile = ${join(temp.dir, "evil-attributes")}`,
      `[remote "origin"]\n\turl = ${remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*`,
      `[filter "x"]\n\tsmudge = ${await trap("smudge", true)}\n\tclean = ${await trap("clean", true)}`,
      `[include]\n\tpath = ${included}`,
      `[alias]\n\tfetch = !${await trap("alias")}`,
      `[credential]\n\thelper = !${await trap("credential")}`,
      '[url "file:///nowhere/"]\n\tinsteadOf = file://',
      "",
    ].join("\n"),
  );
  await mkdir(join(gitDir, "info"), { recursive: true });
  await writeFile(join(gitDir, "info", "attributes"), "* filter=x\n");
  await writeFile(join(temp.dir, "evil-attributes"), "* filter=x\n");
}

describe("TASK-013: a hostile workspace", () => {
  it("TASK-013: hooks, fsmonitor, ssh command, filters, includes and url rewrites fire under plain git, and none under task-prepare", async () => {
    const dir = join(temp.dir, "data-1", "workspace");
    expect((await prepare(dir)).code).toBe(0);
    await arm(join(dir, ".git"));
    // The traps work: plain git runs fsmonitor, the filter, the hooks.
    await plainGit(["status", "--porcelain"], dir);
    await writeFile(join(dir, "README.md"), "# changed\n");
    await plainGit(["status", "--porcelain"], dir);
    await plainGit(["checkout", "-q", "--", "README.md"], dir);
    expect(await fired()).toEqual(expect.arrayContaining(["fsmonitor", "smudge", "hookspath-post-checkout"]));
    await rm(markers, { recursive: true, force: true });
    await mkdir(markers);

    const ready = await prepare(dir);
    expect(ready.code, ready.stderr).toBe(0);
    expect(await fired()).toEqual([]);
    expect(ready.json.cloned).toBe(false);
    expect(ready.json.sanitized).toEqual(
      expect.arrayContaining([
        "config: core.fsmonitor",
        "config: core.hookspath",
        "config: core.sshcommand",
        "config: core.editor",
        "config: core.attributesfile",
        "config: filter.x.smudge",
        "config: include.path",
        "config: alias.fetch",
        "config: credential.helper",
        "config: url.file:///nowhere/.insteadof",
        ".git/hooks/post-checkout",
        ".git/hooks/pre-push",
        ".git/info/attributes",
      ]),
    );
    expect((await plainGit(["config", "--local", "--list", "--name-only"], dir)).split("\n").sort()).toEqual(
      [
        "core.repositoryformatversion",
        "core.filemode",
        "core.bare",
        "core.logallrefupdates",
        "remote.origin.url",
        "remote.origin.fetch",
        `branch.${BRANCH}.remote`,
        `branch.${BRANCH}.merge`,
      ].sort(),
    );
    // Plain git in the prepared workspace runs nothing either (the global attributes file
    // names a filter no configuration defines any more).
    await writeFile(join(dir, "README.md"), "# changed again\n");
    await plainGit(["status", "--porcelain"], dir);
    expect(await fired()).toEqual([]);
  });

  it("TASK-013: hooks, fsmonitor and filters the agent adds during its run do not fire in task-push or task-finalize", async () => {
    const dir = join(temp.dir, "data-2", "workspace");
    expect((await prepare(dir)).code).toBe(0);
    await writeFile(join(dir, "work.txt"), "committed\n");
    await plainGit(["add", "work.txt"], dir);
    await plainGit(["commit", "-qm", "work"], dir);
    await arm(join(dir, ".git"));
    await writeFile(join(dir, ".gitattributes"), "* filter=x\n");
    await writeFile(join(dir, "untracked.txt"), "not committed\n");
    await rm(markers, { recursive: true, force: true });
    await mkdir(markers);
    // The agent's own url rewrite would send the push nowhere; it is the agent's to keep, so
    // it goes for this test.
    await plainGit(["config", "--unset", "url.file:///nowhere/.insteadof"], dir);

    const done = await finalize(dir);
    expect(done.code, done.stderr).toBe(0);
    expect(done.json).toMatchObject({ pushed: true, dirty: true, wip: { files: 2 } });
    expect(await fired()).toEqual([]);
  });

  it("TASK-013: a .git that is a gitdir link or a symbolic link is replaced by a fresh clone; what it pointed at is left alone", async () => {
    const elsewhere = join(temp.dir, "elsewhere");
    await plainGit(["init", "-q", elsewhere]);
    await arm(join(elsewhere, ".git"));
    const configBefore = await readFile(join(elsewhere, ".git", "config"), "utf8");

    const linked = join(temp.dir, "data-3", "workspace");
    await mkdir(linked, { recursive: true });
    await writeFile(join(linked, ".git"), `gitdir: ${join(elsewhere, ".git")}\n`);
    await writeFile(join(linked, "README.md"), "stale\n");
    const first = await prepare(linked);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toMatchObject({ cloned: true, sanitized: [".git (a gitdir link)"] });
    expect(lstatSync(join(linked, ".git")).isDirectory()).toBe(true);
    expect(await readFile(join(linked, "README.md"), "utf8")).toBe("# app\n");

    const symlinked = join(temp.dir, "data-4", "workspace");
    await mkdir(symlinked, { recursive: true });
    await symlink(join(elsewhere, ".git"), join(symlinked, ".git"));
    const second = await prepare(symlinked);
    expect(second.json).toMatchObject({ cloned: true, sanitized: [".git (a symbolic link)"] });
    expect(lstatSync(join(symlinked, ".git")).isDirectory()).toBe(true);

    const inner = join(temp.dir, "data-5", "workspace");
    expect((await prepare(inner)).code).toBe(0);
    await symlink(join(elsewhere, ".git", "hooks"), join(inner, ".git", "info-link"));
    expect((await prepare(inner)).json).toMatchObject({ cloned: true, sanitized: [".git/info-link (a symbolic link)"] });

    expect(await fired()).toEqual([]);
    expect(await readFile(join(elsewhere, ".git", "config"), "utf8")).toBe(configBefore);
    expect(existsSync(join(elsewhere, ".git", "hooks", "post-checkout"))).toBe(true);
  });
});
