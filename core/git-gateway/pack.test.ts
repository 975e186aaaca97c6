import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { commitId, PackError, PackReader } from "./pack";

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

function header(type: number, size: number): number[] {
  const bytes = [(type << 4) | (size & 15) | (size > 15 ? 0x80 : 0)];
  for (let rest = size >> 4; rest; rest >>= 7) bytes.push((rest & 0x7f) | (rest >> 7 ? 0x80 : 0));
  return bytes;
}

function packOf(objects: number[][]): Uint8Array {
  const head = [0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, objects.length];
  return new Uint8Array([...head, ...objects.flat(), ...new Array(20).fill(0)]);
}

function varint(n: number): number[] {
  const bytes: number[] = [];
  do {
    bytes.push((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
    n >>= 7;
  } while (n);
  return bytes;
}

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
