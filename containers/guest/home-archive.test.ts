/**
 * The home archive through the real guest process: a save from one home restored into
 * another, caches left out, and bad restores that leave the home as it was.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, readdir, readFile, readlink, rm, stat, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auth, bundleGuest, type RunningGuest, startGuest, tempDir } from "./test-support/guest-process";

let temp: Awaited<ReturnType<typeof tempDir>>;
let bundle: string;
let source: RunningGuest;
let target: RunningGuest;

beforeAll(async () => {
  temp = await tempDir("guest-archive-");
  bundle = await bundleGuest(temp.dir);
  source = await startGuest(bundle, temp.dir);
  target = await startGuest(bundle, temp.dir, { GUEST_MAX_ARCHIVE_BYTES: String(256 << 10) });
}, 30_000);

afterAll(async () => {
  await source?.stop();
  await target?.stop();
  await temp?.remove();
});

async function put(path: string, content: string | Buffer, home = source.home): Promise<void> {
  await mkdir(dirname(join(home, path)), { recursive: true });
  await writeFile(join(home, path), content);
}

const getArchive = async (guest: RunningGuest) => {
  const res = await fetch(`${guest.base}/home/archive`, { headers: auth });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/zstd");
  return Buffer.from(await res.arrayBuffer());
};
const restore = (guest: RunningGuest, body: Buffer | string) => fetch(`${guest.base}/home/archive`, { method: "PUT", headers: auth, body });

/** Every path under a home, sorted (directories marked with a trailing slash). */
async function listing(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name).slice(root.length + 1);
    found.push(entry.isDirectory() ? `${path}/` : path);
  }
  return found.sort();
}

describe("SBX-036: home archive", () => {
  it("SBX-036: files, modes, symbolic links and empty folders come back in another home; caches and profile locks stay out", async () => {
    await put("project/notes.md", "# notes\n");
    await put("project/run.sh", "#!/bin/sh\necho hi\n");
    await chmod(join(source.home, "project/run.sh"), 0o755);
    await symlink("project/notes.md", join(source.home, "link-to-notes"));
    await mkdir(join(source.home, "empty"));
    await put(".browser/Default/Cookies", "cookie-db");
    await put(".browser/Default/Cache/data_0", "cached");
    await put(".browser/GrShaderCache/x", "shader");
    await put(".cache/pip/wheel", "w");
    await put("project/Cache/kept", "not a browser cache");
    await symlink("somebox-42", join(source.home, ".browser/SingletonLock"));

    const archive = await getArchive(source);
    expect(archive.subarray(0, 4)).toEqual(Buffer.from([0x28, 0xb5, 0x2f, 0xfd])); // zstd frame magic
    const res = await restore(target, archive);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ bytes: 8 + 18 + 9 + 19 + "project/notes.md".length, files: 5 });

    expect(await listing(target.home)).toEqual(
      [
        ".browser/",
        ".browser/Default/",
        ".browser/Default/Cookies",
        "empty/",
        "link-to-notes",
        "project/",
        "project/Cache/",
        "project/Cache/kept",
        "project/notes.md",
        "project/run.sh",
      ].sort(),
    );
    expect(await readFile(join(target.home, "project/notes.md"), "utf8")).toBe("# notes\n");
    expect((await stat(join(target.home, "project/run.sh"))).mode & 0o777).toBe(0o755);
    expect(await readlink(join(target.home, "link-to-notes"))).toBe("project/notes.md");
  });

  it("SBX-036: a restore merges into a home that has files: the archive's win, the others stay; no staging folder is left", async () => {
    await put("project/notes.md", "local edit\n", target.home);
    await put("local-only.txt", "mine\n", target.home);
    await put("big.bin", Buffer.alloc(100_000, 1), source.home);
    const res = await restore(target, await getArchive(source));
    expect(res.status).toBe(200);
    expect(await readFile(join(target.home, "project/notes.md"), "utf8")).toBe("# notes\n");
    expect(await readFile(join(target.home, "local-only.txt"), "utf8")).toBe("mine\n");
    expect((await stat(join(target.home, "big.bin"))).size).toBe(100_000);
    expect((await readdir(dirname(target.home))).filter((n) => n.includes("restore"))).toEqual([]);
  });

  it("SBX-036: a corrupt archive is a 400 and the home is left as it was", async () => {
    const before = await listing(target.home);
    const good = await getArchive(source);
    for (const body of [Buffer.from("not an archive at all"), good.subarray(0, Math.floor(good.length / 2))]) {
      const res = await restore(target, body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("archive.invalid");
    }
    // A valid zstd stream around something that is not a tar archive.
    const notTar = spawnSync("zstd", ["-q", "-c"], { input: Buffer.alloc(5_000, 7) }).stdout;
    expect((await restore(target, notTar)).status).toBe(400);
    expect(await listing(target.home)).toEqual(before);
    expect((await readdir(dirname(target.home))).filter((n) => n.includes("restore"))).toEqual([]);
  });

  it("SBX-036: an archive over the limit is a 413, declared or streamed, and the home is left as it was", async () => {
    const before = await listing(target.home);
    const large = Buffer.alloc(300 << 10, 3);
    const declared = await restore(target, large);
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { error: { code: string } }).error.code).toBe("archive.too_large");
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 6; i++) controller.enqueue(new Uint8Array(64 << 10));
        controller.close();
      },
    });
    const streamed = await fetch(`${target.base}/home/archive`, { method: "PUT", headers: auth, body: stream, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await listing(target.home)).toEqual(before);
  });

  it("SBX-036: on SIGTERM the guest pushes the home to its save address before it exits", async () => {
    const received: { method?: string; type?: string; body: Buffer[] } = { body: [] };
    const server = createServer((req, res) => {
      received.method = req.method;
      received.type = req.headers["content-type"];
      req.on("data", (chunk: Buffer) => received.body.push(chunk));
      req.on("end", () => res.end("{}"));
    }).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const saving = await startGuest(bundle, temp.dir, { GUEST_HOME_SAVE_URL: `http://127.0.0.1:${(server.address() as { port: number }).port}/homes/a1` });
    try {
      // Nothing was saved before: the platform says so, and the home counts as restored.
      expect((await fetch(`${saving.base}/home/ready`, { method: "POST", headers: auth })).status).toBe(200);
      await put("work/state.txt", "saved on exit\n", saving.home);
      await saving.stop();
      expect(received).toMatchObject({ method: "PUT", type: "application/zstd" });
      const res = await restore(target, Buffer.concat(received.body));
      expect(res.status).toBe(200);
      expect(await readFile(join(target.home, "work/state.txt"), "utf8")).toBe("saved on exit\n");
    } finally {
      server.close();
    }
  });

  it("SBX-036: a box stopped before its home was restored pushes nothing over the saved home", async () => {
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      req.on("end", () => res.end("{}"));
    }).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/homes/a1`;
    try {
      const early = await startGuest(bundle, temp.dir, { GUEST_HOME_SAVE_URL: url });
      await put("half-restored.txt", "not the agent's home\n", early.home);
      await early.stop();
      expect(requests).toBe(0);
      // A restore that failed does not count either.
      const failed = await startGuest(bundle, temp.dir, { GUEST_HOME_SAVE_URL: url });
      expect((await restore(failed, "not an archive")).status).toBe(400);
      await failed.stop();
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });

  it("SBX-036: a save streams with no room for a copy of the archive on the box's disk", async () => {
    const cramped = await startGuest(bundle, temp.dir, {}, { TMPDIR: join(temp.dir, "no-such-dir") });
    try {
      await put("work/kept.txt", "streamed\n", cramped.home);
      const res = await restore(target, await getArchive(cramped));
      expect(res.status).toBe(200);
      expect(await readFile(join(target.home, "work/kept.txt"), "utf8")).toBe("streamed\n");
    } finally {
      await cramped.stop();
    }
  });

  it("SBX-040: a save past the request's max_bytes is refused (workspace.full), or stops just past it so the reader sees it is over", async () => {
    // Incompressible bytes: the archive is at least their size.
    await put("noise.bin", randomBytes(400 << 10), source.home);
    try {
      const small = await fetch(`${source.base}/home/archive?max_bytes=1000`, { headers: auth });
      expect(small.status).toBe(413);
      expect(((await small.json()) as { error: { code: string } }).error.code).toBe("workspace.full");
      // Past the cap after the first chunk: tar is stopped and what was sent is over the cap.
      const cut = await fetch(`${source.base}/home/archive?max_bytes=${300 << 10}`, { headers: auth });
      expect(cut.status).toBe(200);
      const sent = (await cut.arrayBuffer()).byteLength;
      expect(sent).toBeGreaterThan(300 << 10);
      expect(sent).toBeLessThan(400 << 10);
      // The guest's own ceiling bounds a request asking for more (target's is 256 KiB).
      const whole = await fetch(`${source.base}/home/archive?max_bytes=${1 << 30}`, { headers: auth });
      expect((await whole.arrayBuffer()).byteLength).toBeGreaterThan(400 << 10);
    } finally {
      await rm(join(source.home, "noise.bin"));
    }
  });

  it("SBX-040: a restore takes the request's max_bytes as its cap", async () => {
    const before = await listing(target.home);
    const archive = await getArchive(source);
    const res = await fetch(`${target.base}/home/archive?max_bytes=${archive.length - 1}`, { method: "PUT", headers: auth, body: archive });
    expect(res.status).toBe(413);
    expect(await listing(target.home)).toEqual(before);
  });

  it("SBX-GUEST: the archive routes need the token", async () => {
    expect((await fetch(`${source.base}/home/archive`)).status).toBe(401);
    expect((await fetch(`${source.base}/home/archive`, { method: "PUT", body: "x" })).status).toBe(401);
    expect((await fetch(`${source.base}/home/ready`, { method: "POST" })).status).toBe(401);
    expect((await lstat(source.home)).isDirectory()).toBe(true);
  });
});
