/**
 * The task volume's archive and restore through the real guest process (TASK-036): a volume
 * saved from one box comes back whole in another, replacing what was there, and a restore is
 * bounded and untrusted like the home's.
 */
import { spawnSync } from "node:child_process";
import { lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auth, bundleGuest, type RunningGuest, startGuest, tempDir } from "./test-support/guest-process";

let temp: Awaited<ReturnType<typeof tempDir>>;
let source: RunningGuest;
let target: RunningGuest;
let sourceVolume: string;
let targetVolume: string;

beforeAll(async () => {
  temp = await tempDir("guest-volume-");
  const bundle = await bundleGuest(temp.dir);
  sourceVolume = join(temp.dir, "source-data");
  targetVolume = join(temp.dir, "target-data");
  source = await startGuest(bundle, temp.dir, { GUEST_VOLUME: sourceVolume });
  target = await startGuest(bundle, temp.dir, { GUEST_VOLUME: targetVolume, GUEST_MAX_ARCHIVE_BYTES: String(256 << 10) });
}, 30_000);

afterAll(async () => {
  await source?.stop();
  await target?.stop();
  await temp?.remove();
});

async function put(root: string, path: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

async function listing(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name).slice(root.length + 1);
    found.push(entry.isDirectory() ? `${path}/` : path);
  }
  return found.sort();
}

const archive = async () => {
  const res = await fetch(`${source.base}/volume/archive`, { headers: auth });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/zstd");
  return Buffer.from(await res.arrayBuffer());
};
const restore = (body: Buffer | string, query = "") => fetch(`${target.base}/volume/restore${query}`, { method: "PUT", headers: auth, body });

/** A zstd tar made by the system's tar from `dir`, with extra arguments (e.g. absolute names). */
function tarOf(dir: string, args: string[]): Buffer {
  const made = spawnSync("tar", ["--create", "--zstd", "--file=-", "--directory", dir, ...args]);
  expect(made.status, made.stderr.toString()).toBe(0);
  return made.stdout;
}

describe("TASK-036: the task volume's archive", () => {
  it("TASK-036: the volume comes back whole in another box, caches and all, and replaces what was there", async () => {
    await put(sourceVolume, "workspace/.git/HEAD", "ref: refs/heads/factory/task/APP-1\n");
    await put(sourceVolume, "workspace/src/app.ts", "export {};\n");
    await put(sourceVolume, "workspace/node_modules/dep/index.js", "module.exports = 1;\n");
    await put(sourceVolume, ".cache/tool/blob", "kept: the volume is a cache already\n");
    await symlink("src/app.ts", join(sourceVolume, "workspace/link"));
    await put(targetVolume, "stale.txt", "from an older restore\n");

    const res = await restore(await archive());
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ files: 5, dropped: 0 });
    expect(await listing(targetVolume)).toEqual(
      [
        ".cache/",
        ".cache/tool/",
        ".cache/tool/blob",
        "workspace/",
        "workspace/.git/",
        "workspace/.git/HEAD",
        "workspace/link",
        "workspace/node_modules/",
        "workspace/node_modules/dep/",
        "workspace/node_modules/dep/index.js",
        "workspace/src/",
        "workspace/src/app.ts",
      ].sort(),
    );
    expect(await readFile(join(targetVolume, "workspace/node_modules/dep/index.js"), "utf8")).toBe("module.exports = 1;\n");
    expect((await stat(join(targetVolume, "workspace/src/app.ts"))).uid).toBe(process.getuid!());
  });

  it("TASK-036 / TASK-010: with part=git the archive holds the workspace's git directory alone (a repository's seed)", async () => {
    const res = await fetch(`${source.base}/volume/archive?part=git`, { headers: auth });
    expect(res.status).toBe(200);
    expect((await restore(Buffer.from(await res.arrayBuffer()))).status).toBe(200);
    expect(await listing(targetVolume)).toEqual(["workspace/", "workspace/.git/", "workspace/.git/HEAD"]);
  });

  it("TASK-036: a restore drops FIFOs and set-user-ID bits and keeps the rest", async () => {
    const odd = join(temp.dir, "odd");
    await put(odd, "ok.txt", "fine\n");
    await put(odd, "suid", "#!/bin/sh\n");
    spawnSync("chmod", ["4755", join(odd, "suid")]);
    spawnSync("mkfifo", [join(odd, "pipe")]);
    const res = await restore(tarOf(odd, ["ok.txt", "suid", "pipe"]));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ files: 2, dropped: 1 });
    expect(await readFile(join(targetVolume, "ok.txt"), "utf8")).toBe("fine\n");
    expect((await stat(join(targetVolume, "suid"))).mode & 0o7777).toBe(0o755);
    expect(await listing(targetVolume)).toEqual(["ok.txt", "suid"]);
  });

  it("TASK-036: a restore writes nothing outside the volume: dot-dot names and writes through a link are refused", async () => {
    await restore(await archive());
    const before = await listing(targetVolume);
    const outside = join(temp.dir, "outside");
    await mkdir(outside);
    const evil = join(temp.dir, "evil");
    await put(evil, "escape.txt", "escaped\n");
    const dotDot = tarOf(evil, ["--transform", "s,^escape.txt$,../../outside/escape.txt,", "escape.txt"]);
    expect((await restore(dotDot)).status).toBe(400);
    // A link to the outside, then a file under the link's name, in one archive.
    const plain = join(temp.dir, "through.tar");
    await symlink(outside, join(evil, "link"));
    expect(spawnSync("tar", ["--create", "--file", plain, "--directory", evil, "link"]).status).toBe(0);
    await put(join(temp.dir, "evil2"), "link/escape.txt", "escaped\n");
    expect(spawnSync("tar", ["--append", "--file", plain, "--directory", join(temp.dir, "evil2"), "link/escape.txt"]).status).toBe(0);
    const through = await restore(spawnSync("zstd", ["-q", "-c", plain]).stdout);
    expect([200, 400]).toContain(through.status);
    expect(await readdir(outside)).toEqual([]);
    if (through.status === 400) expect(await listing(targetVolume)).toEqual(before);
    expect((await readdir(targetVolume)).filter((n) => n.startsWith(".volume-restore-"))).toEqual([]);
  });

  it("TASK-036: a corrupt or oversized archive is refused and the volume is left as it was", async () => {
    await restore(await archive());
    const before = await listing(targetVolume);
    const bad = await restore("not an archive");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("archive.invalid");
    const large = await restore(Buffer.alloc(300 << 10, 1));
    expect(large.status).toBe(413);
    const good = await archive();
    const capped = await restore(good, `?max_bytes=${good.length - 1}`);
    expect(capped.status).toBe(413);
    expect(await listing(targetVolume)).toEqual(before);
    expect((await readdir(targetVolume)).filter((n) => n.startsWith(".volume-restore-"))).toEqual([]);
  });

  it("TASK-036: an archive past max_bytes is refused (workspace.full); the routes need the token", async () => {
    const small = await fetch(`${source.base}/volume/archive?max_bytes=10`, { headers: auth });
    expect(small.status).toBe(413);
    expect(((await small.json()) as { error: { code: string } }).error.code).toBe("workspace.full");
    expect((await fetch(`${source.base}/volume/archive`)).status).toBe(401);
    expect((await fetch(`${source.base}/volume/restore`, { method: "PUT", body: "x" })).status).toBe(401);
    expect((await lstat(sourceVolume)).isDirectory()).toBe(true);
  });
});
