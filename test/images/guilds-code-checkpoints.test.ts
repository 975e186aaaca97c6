/**
 * Checkpoints and diffs of guilds-code in a real standard box (REPO-014..018, REPO-022,
 * OP-REPO-2, OP-REPO-9): commits of the whole work tree at refs/guild/runs/<run>/{start,end},
 * built without touching the real index, HEAD or branches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RepoChange } from "../../core/repos/types";
import { agentShell, type Box, buildImages, dockerUnavailable, runBox } from "./boxes";

const unavailable = dockerUnavailable();
const RUN = "7f3a9c10-5d1e-4b7a-9a61-2f1c0e9d4b11";
const WORK = "/home/agent/repos/work";

let box: Box;
const { sh, json } = agentShell(() => box);
const checkpoint = (kind: "start" | "end", run = RUN) => json<RepoChange[]>(`guilds-code checkpoint --run ${run} --kind ${kind}`);
const only = (changes: RepoChange[], name: string) => changes.find((change) => change.name === name);
/** What the real index, HEAD and branches say, byte for byte (status would refresh the index, so it is not run here). */
const untouchable = `sha256sum .git/index | cut -c1-64; git rev-parse HEAD; git symbolic-ref HEAD; git for-each-ref refs/heads refs/tags`;

beforeAll(async () => {
  if (unavailable) return;
  await buildImages();
  box = await runBox("standard", { HOME: "/home/agent" });
  await sh(`guilds-code identity --name Agent --email agent@agents.guilds.run >/dev/null
    git init -q --bare -b main /srv/origin.git && git init -q -b main /tmp/seed && cd /tmp/seed
    printf 'one\\n' > a.txt && printf 'gone\\n' > b.txt && printf '*.log\\nignored/\\n' > .gitignore && printf 'tracked\\n' > kept.log
    git add a.txt b.txt .gitignore && git add -f kept.log && git commit -qm init && git push -q /srv/origin.git main
    guilds-code clone --url file:///srv/origin.git --dir work >/dev/null
    mkdir -p /home/agent/repos/not-a-repo && echo x > /home/agent/repos/not-a-repo/file`);
}, 900_000);

afterAll(async () => {
  await box?.remove();
});

describe.skipIf(unavailable)("guilds-code checkpoints", () => {
  let start: RepoChange;
  let end: RepoChange;

  it("REPO-014: the start checkpoint records the work tree at refs/guild/runs/<run>/start, with zero counts", async () => {
    const head = (await sh(`git -C ${WORK} rev-parse HEAD`)).stdout.trim();
    const changes = await checkpoint("start");
    expect(changes.map((c) => c.name)).toEqual(["work"]);
    start = changes[0]!;
    expect(start).toEqual({
      name: "work",
      branch: "main",
      head_sha: head,
      start_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      end_sha: start.start_sha,
      files_changed: 0,
      insertions: 0,
      deletions: 0,
    });
    expect(
      (
        await sh(
          `cd ${WORK} && git rev-parse refs/guild/runs/${RUN}/start refs/guild/runs/${RUN}/start^ && git rev-parse HEAD^{tree} ${start.start_sha}^{tree}`,
        )
      ).stdout,
    ).toBe(`${start.start_sha}\n${head}\n${(await sh(`git -C ${WORK} rev-parse HEAD^{tree}`)).stdout.repeat(2)}`);
  });

  it("REPO-016: the end checkpoint holds staged, unstaged and untracked changes (odd names, binary), not ignored files, and leaves index, HEAD and branches untouched", async () => {
    await sh(`cd ${WORK} && printf 'staged\\n' >> a.txt && git add a.txt && printf 'unstaged\\n' >> a.txt && rm b.txt
      printf 'spaced\\n' > 'with space.txt' && printf 'nl\\n' > "$(printf 'new\\nline.txt')" && printf 'bin\\000ary' > blob.bin
      printf 'noise\\n' > debug.log && mkdir -p ignored && echo x > ignored/x && printf 'tracked, changed\\n' > kept.log`);
    const before = (await sh(`cd ${WORK} && ${untouchable}`)).stdout;
    // The caller's GIT_* variables do not steer it to another index or repository.
    const run = await sh(`cd ${WORK} && guilds-code checkpoint --run ${RUN} --kind end && ${untouchable}`, {
      GIT_INDEX_FILE: "/tmp/elsewhere",
      GIT_DIR: "/srv/origin.git",
    });
    const [line, ...after] = run.stdout.split("\n");
    expect(after.join("\n")).toBe(before);
    expect((await sh(`cd ${WORK} && git diff --cached --name-only && echo -- && git diff --name-only`)).stdout).toBe("a.txt\n--\na.txt\nb.txt\nkept.log\n");

    end = only(JSON.parse(line!) as RepoChange[], "work")!;
    // a.txt (+2), b.txt (-1), kept.log (+1 -1), three new files (+1, +1, binary).
    expect(end).toMatchObject({ branch: "main", head_sha: start.head_sha, start_sha: start.start_sha, files_changed: 6, insertions: 5, deletions: 2 });
    expect(end.end_sha).not.toBe(start.start_sha);
    const tree = (await sh(`cd ${WORK} && git ls-tree -r --name-only ${end.end_sha}`)).stdout;
    expect(tree).toBe('.gitignore\na.txt\nblob.bin\nkept.log\n"new\\nline.txt"\nwith space.txt\n');
    expect((await sh(`cd ${WORK} && git show ${end.end_sha}:a.txt && git rev-parse ${end.end_sha}^ refs/guild/runs/${RUN}/end`)).stdout).toBe(
      `one\nstaged\nunstaged\n${start.head_sha}\n${end.end_sha}\n`,
    );
    expect((await sh(`cd ${WORK} && git show ${end.end_sha}:blob.bin | od -An -c | tr -s ' '`)).stdout.trim()).toBe("b i n \\0 a r y");
  });

  it("RUN-019: the end checkpoint lists each file start..end with its change kind and line counts (null for binary)", async () => {
    expect(end.files).toEqual([
      { path: "a.txt", change: "modified", old_path: null, insertions: 2, deletions: 0 },
      { path: "b.txt", change: "deleted", old_path: null, insertions: 0, deletions: 1 },
      { path: "blob.bin", change: "added", old_path: null, insertions: null, deletions: null },
      { path: "kept.log", change: "modified", old_path: null, insertions: 1, deletions: 1 },
      { path: "new\nline.txt", change: "added", old_path: null, insertions: 1, deletions: 0 },
      { path: "with space.txt", change: "added", old_path: null, insertions: 1, deletions: 0 },
    ]);
    expect(end.files_truncated).toBeUndefined();
    // A rename is found as the diff shows it, with the old path.
    await sh(`cd ${WORK} && git mv .gitignore moved.gitignore`);
    const moved = only(await checkpoint("end"), "work")!;
    expect(moved.files?.find((f) => f.path === "moved.gitignore")).toEqual({
      path: "moved.gitignore",
      change: "renamed",
      old_path: ".gitignore",
      insertions: 0,
      deletions: 0,
    });
    await sh(`cd ${WORK} && git mv moved.gitignore .gitignore`);
  });

  it("REPO-014/REPO-015: a later start keeps the first start; every end moves the end ref", async () => {
    await sh(`cd ${WORK} && printf 'more\\n' >> 'with space.txt'`);
    const again = only(await checkpoint("start"), "work")!;
    expect(again).toMatchObject({ start_sha: start.start_sha, end_sha: start.start_sha, files_changed: 0 });
    const next = only(await checkpoint("end"), "work")!;
    expect(next.start_sha).toBe(start.start_sha);
    expect(next.end_sha).not.toBe(end.end_sha);
    expect(next.insertions).toBe(end.insertions + 1);
    expect((await sh(`git -C ${WORK} rev-parse refs/guild/runs/${RUN}/end`)).stdout.trim()).toBe(next.end_sha);
  });

  it("REPO-017: checkpoint refs stay local: a push of the branch does not carry them", async () => {
    await sh(`cd ${WORK} && git add -A && git commit -qm work && git push -q origin main`);
    expect((await sh("git ls-remote /srv/origin.git")).stdout).not.toContain("refs/guild");
    expect((await sh(`git -C ${WORK} for-each-ref refs/guild`)).stdout).toContain(`refs/guild/runs/${RUN}/end`);
  });

  it("REPO-016/OP-REPO-9: a work tree without commits and a detached HEAD still checkpoint; a repository cloned later gets its start at its first checkpoint", async () => {
    await sh(`git init -q -b trunk /home/agent/repos/fresh && echo hello > /home/agent/repos/fresh/first.txt
      git clone -q file:///srv/origin.git /home/agent/repos/detached && git -C /home/agent/repos/detached checkout -q --detach`);
    const changes = await checkpoint("end");
    expect(changes.map((c) => c.name)).toEqual(["detached", "fresh", "work"]);
    const fresh = only(changes, "fresh")!;
    expect(fresh).toMatchObject({ branch: "trunk", head_sha: null, files_changed: 0, insertions: 0, deletions: 0 });
    expect(fresh.start_sha).toBe(fresh.end_sha);
    expect(
      (await sh(`cd /home/agent/repos/fresh && git rev-list --parents ${fresh.end_sha} && git ls-tree --name-only ${fresh.end_sha} && git status --porcelain`))
        .stdout,
    ).toBe(`${fresh.end_sha}\nfirst.txt\n?? first.txt\n`);
    const detached = only(changes, "detached")!;
    expect(detached.branch).toBeNull();
    expect(detached.head_sha).toMatch(/^[0-9a-f]{40}$/);
    expect((await sh(`git -C /home/agent/repos/detached rev-parse refs/guild/runs/${RUN}/start`)).stdout.trim()).toBe(detached.start_sha);
  });

  it("REPO-016: a nested repository without a commit is left out with a note; the rest is still checkpointed", async () => {
    await sh(
      `cd ${WORK} && git init -q nested-empty && git init -q nested && echo n > nested/n && git -C nested add n && git -C nested commit -qm n && echo later > later.txt`,
    );
    const run = await sh(`guilds-code checkpoint --run ${RUN} --kind end`);
    expect(run.stderr).toContain("'nested-empty/' does not have a commit checked out");
    const work = only(JSON.parse(run.stdout) as RepoChange[], "work")!;
    expect((await sh(`git -C ${WORK} ls-tree --name-only ${work.end_sha}`)).stdout.split("\n")).toEqual(expect.arrayContaining(["later.txt", "nested"]));
    await sh(`cd ${WORK} && rm -rf nested-empty nested later.txt`);
  });

  it("REPO-022/OP-REPO-2: diff prints start..end, cut at a line boundary under --max-bytes with truncated set", async () => {
    const full = await json<{ diff: string; truncated: boolean }>(`guilds-code diff --run ${RUN} --repo work`);
    expect(full.truncated).toBe(false);
    expect(full.diff).toContain("diff --git a/a.txt b/a.txt\n");
    expect(full.diff).toContain("+unstaged\n");
    expect(full.diff).toContain("Binary files /dev/null and b/blob.bin differ\n");
    expect(full.diff).toContain('diff --git "a/new\\nline.txt" "b/new\\nline.txt"');
    const cut = await json<{ diff: string; truncated: boolean }>(`guilds-code diff --run ${RUN} --repo work --max-bytes 300`);
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.diff)).toBeLessThanOrEqual(300);
    expect(cut.diff.endsWith("\n")).toBe(true);
    expect(full.diff.startsWith(cut.diff)).toBe(true);
    expect(full.diff.slice(cut.diff.length).split("\n")[0]!.length + cut.diff.length + 1).toBeGreaterThan(300);
  });

  it("REPO-022: diff of a run without checkpoints exits 4 with an error; bad arguments exit 2 and run nothing", async () => {
    const missing = await sh(`guilds-code diff --run other-run --repo work`, {}, true);
    expect(missing.exitCode).toBe(4);
    expect(JSON.parse(missing.stdout)).toEqual({ error: "checkpoint.missing", message: "work has no refs/guild/runs/other-run/start" });
    const noRepo = await sh(`guilds-code diff --run ${RUN} --repo gone`, {}, true);
    expect(noRepo.exitCode).toBe(4);
    expect(JSON.parse(noRepo.stdout)).toMatchObject({ error: "repository.missing" });
    for (const args of [
      `checkpoint --run ../x --kind end`,
      `checkpoint --run ${RUN} --kind middle`,
      `diff --run ${RUN} --repo ../work`,
      `clone --url x --dir .hidden`,
    ]) {
      const bad = await sh(`guilds-code ${args}`, {}, true);
      expect(bad.exitCode, args).toBe(2);
      expect(JSON.parse(bad.stdout), args).toMatchObject({ error: "usage" });
    }
    expect((await sh(`git -C ${WORK} for-each-ref refs/guild --format='%(refname)'`)).stdout).toBe(
      `refs/guild/runs/${RUN}/end\nrefs/guild/runs/${RUN}/start\n`,
    );
  });
});
