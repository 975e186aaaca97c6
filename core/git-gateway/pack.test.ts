import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { packOf as craftedPack, objectHeader, varint } from "../../scripts/forge/crafted-pack";
import { commitId, PackError } from "./commit";
import { PackReader } from "./pack";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const GIT_ENV = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "T",
  GIT_AUTHOR_EMAIL: "t@example.test",
  GIT_COMMITTER_NAME: "T",
  GIT_COMMITTER_EMAIL: "t@example.test",
};
const git = (cwd: string, args: string[], input?: string) => execFileSync("git", args, { cwd, env: GIT_ENV, input, maxBuffer: 64 << 20 });

/** Feeds `pack` in chunks of the given sizes (cycled); → the commits read. */
async function read(pack: Uint8Array, sizes: number[]): Promise<ReadonlyMap<string, readonly string[]>> {
  const reader = new PackReader();
  for (let at = 0, i = 0; at < pack.length; i++) {
    const size = sizes[i % sizes.length]!;
    reader.push(pack.subarray(at, at + size));
    at += size;
  }
  reader.finish();
  return reader.commits();
}

const header = (type: number, size: number) => [...objectHeader(type, size)];
const packOf = (objects: number[][]) => new Uint8Array(craftedPack(objects.map((o) => Buffer.from(o))));
const commitBody = (parent: string, message: string) =>
  Buffer.from(`tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent ${parent}\nauthor T <t@x> 1 +0000\ncommitter T <t@x> 1 +0000\n\n${message}\n`);

describe("the pushed pack's commits", () => {
  it("TASK-017: a real git pack gives every commit with its parents, however it is chunked", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pack-test-"));
    dirs.push(dir);
    git(dir, ["init", "--quiet", "-b", "main"]);
    for (let i = 0; i < 12; i++) {
      writeFileSync(join(dir, `f${i % 3}.txt`), `line ${i}\n`.repeat(200 + i));
      git(dir, ["add", "-A"]);
      git(dir, ["commit", "--quiet", "-m", `commit ${i}`]);
    }
    git(dir, ["merge", "--quiet", "--no-ff", "-m", "merge", git(dir, ["commit-tree", "-p", "HEAD~3", "-m", "side", "HEAD^{tree}"]).toString().trim()]);
    // With offsets (as git pushes to a forge that takes them) and with base ids: commits come as deltas of commits.
    const packs = [["--delta-base-offset"], []].map(
      (extra) => new Uint8Array(git(dir, ["pack-objects", "--stdout", "--revs", "-q", ...extra], "HEAD\n^HEAD~5\n")),
    );
    const expected = new Map(
      git(dir, ["rev-list", "--parents", "HEAD", "^HEAD~5"])
        .toString()
        .trim()
        .split("\n")
        .map((line) => {
          const [id, ...parents] = line.split(" ");
          return [id!, parents] as const;
        }),
    );
    for (const pack of packs) for (const sizes of [[pack.length], [1], [7, 300, 2], [4096]]) expect(await read(pack, sizes)).toEqual(expected);
  });

  it("TASK-017: a commit sent as a delta of another commit of the pack is resolved; a thin delta's type stays unknown", async () => {
    const first = commitBody("a".repeat(40), "first");
    const second = commitBody("b".repeat(40), "second");
    // Copy the first's header up to its parent line, insert the rest of the second.
    const prefix = first.indexOf("parent ") + 7;
    const rest = second.subarray(prefix);
    if (prefix > 255 || rest.length > 127) throw new Error("the test's commits are too long for its delta");
    const delta = [...varint(first.length), ...varint(second.length), 0x80 | 0x01 | 0x10, 0, prefix, rest.length, ...rest];
    const firstObject = [...header(1, first.length), ...deflateSync(first)];
    const pack = packOf([
      firstObject,
      [...header(6, delta.length), firstObject.length, ...deflateSync(Buffer.from(delta))],
      [...header(7, 3), ...new Array(20).fill(1), ...deflateSync(Buffer.from([1, 1, 0]))],
    ]);
    const commits = await read(pack, [5]);
    const id = (body: Buffer) => createHash("sha1").update(`commit ${body.length}\0`).update(body).digest("hex");
    expect(commits).toEqual(
      new Map([
        [id(first), ["a".repeat(40)]],
        [id(second), ["b".repeat(40)]],
      ]),
    );
    expect(await commitId(new Uint8Array(first))).toBe(id(first));
  });

  it("TASK-017: hostile packs are PackErrors, never anything else", async () => {
    const blob = [...header(3, 5), ...deflateSync(Buffer.from("hello"))];
    const cases: Array<[string, Uint8Array]> = [
      ["not a pack", new TextEncoder().encode("GARBAGE-GARBAGE-GARBAGE")],
      ["a version of none", new Uint8Array([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 9, 0, 0, 0, 0])],
      ["truncated", packOf([blob]).subarray(0, 20)],
      ["more objects claimed than sent", packOf([blob]).map((b, i) => (i === 11 ? 5 : b))],
      ["a huge declared size", packOf([[0xb0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]])],
      ["a wrong size", packOf([[...header(3, 9), ...deflateSync(Buffer.from("hello"))]])],
      ["a delta before the pack's start", packOf([[...header(6, 3), 0x7f, ...deflateSync(Buffer.from([1, 1, 0]))]])],
      ["an unknown type", packOf([[...header(5, 5), ...deflateSync(Buffer.from("hello"))]])],
      ["a huge commit", packOf([[...header(1, 1 << 30), 0x78, 0x9c]])],
      ["data after the end", new Uint8Array([...packOf([blob]), 1, 2, 3])],
    ];
    for (const [name, pack] of cases) {
      for (const sizes of [[pack.length], [3]]) {
        const error = await read(pack, sizes).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error, name).toBeInstanceOf(PackError);
      }
    }
  });
});

describe("what reading a pack costs", () => {
  it("TASK-017: a large object before the commits streams through once: nothing of it waits, nothing is inflated twice", async () => {
    const blob = randomBytes(24 * 1024 * 1024);
    const commit = commitBody("a".repeat(40), "after the blob");
    const pack = craftedPack([
      Buffer.concat([objectHeader(3, blob.length), deflateSync(blob, { level: 0 })]),
      Buffer.concat([objectHeader(1, commit.length), deflateSync(commit)]),
    ]);
    const reader = new PackReader();
    let waiting = 0;
    for (let at = 0; at < pack.length; at += 65_536) {
      reader.push(pack.subarray(at, at + 65_536));
      waiting = Math.max(waiting, reader.cost.waitingBytes);
    }
    reader.finish();
    expect(waiting).toBeLessThanOrEqual(32);
    expect(reader.cost.inflatedBytes).toBe(blob.length + commit.length);
    expect(reader.cost.keptBytes).toBe(commit.length);
    expect([...(await reader.commits()).values()]).toEqual([["a".repeat(40)]]);
  });

  it("TASK-017: zlib's own streams, every level and strategy, read to their exact end; cut or corrupted, only a PackError", async () => {
    const { constants } = await import("node:zlib");
    const sources = [randomBytes(3000), Buffer.from("tree abc\n".repeat(5000)), Buffer.alloc(70_000, 7), Buffer.alloc(0), randomBytes(1)];
    const objects: number[][] = [];
    let inflated = 0;
    for (const [i, data] of sources.entries()) {
      for (const level of [0, 1, 6, 9]) {
        const strategy = [constants.Z_DEFAULT_STRATEGY, constants.Z_FILTERED, constants.Z_HUFFMAN_ONLY, constants.Z_RLE, constants.Z_FIXED][(i + level) % 5];
        objects.push([...header(3, data.length), ...deflateSync(data, { level, strategy })]);
        inflated += data.length;
      }
    }
    const pack = packOf(objects);
    for (const sizes of [[pack.length], [1], [13, 4096, 2]]) {
      const reader = new PackReader();
      for (let at = 0, i = 0; at < pack.length; i++) {
        reader.push(pack.subarray(at, at + sizes[i % sizes.length]!));
        at += sizes[i % sizes.length]!;
      }
      reader.finish();
      expect(reader.cost.inflatedBytes).toBe(inflated);
    }
    // Flipped bytes, then a cut anywhere before the trailer: a PackError every time, never a crash or a hang.
    let refused = 0;
    for (let round = 0; round < 400; round++) {
      const hostile = new Uint8Array(pack.subarray(0, 12 + Math.floor(Math.random() * (pack.length - 12))));
      for (let flips = 1 + (round % 4); flips; flips--) {
        const at = 12 + Math.floor(Math.random() * (hostile.length - 12));
        hostile[at] = hostile[at]! ^ (1 << (round % 8));
      }
      const reader = new PackReader();
      try {
        for (let at = 0; at < hostile.length; at += 1 + (round % 700)) reader.push(hostile.subarray(at, at + 1 + (round % 700)));
        reader.finish();
      } catch (error) {
        expect(error).toBeInstanceOf(PackError);
        refused++;
      }
    }
    expect(refused).toBe(400);
  });
});
