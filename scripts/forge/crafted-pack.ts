/**
 * Packs built byte by byte, as a hostile box would write them: object headers, deltas and
 * the pkt-line command list of a push, for the git gateway's tests (core/git-gateway, the
 * hostile-push end-to-end test) alongside what real git sends.
 *
 * @example packOf([commitObject(commitBody([base], "msg"))]) // a whole pack with its SHA-1 trailer
 */
import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";

export const COMMIT = 1;
export const BLOB = 3;
export const OFS_DELTA = 6;
export const REF_DELTA = 7;
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** An object's header: type and size, git's little-endian varint. */
export function objectHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size % 16) | (size > 15 ? 0x80 : 0)];
  for (let rest = Math.floor(size / 16); rest; rest = Math.floor(rest / 128)) bytes.push((rest % 128) | (rest >= 128 ? 0x80 : 0));
  return Buffer.from(bytes);
}

/** A delta's size varint. */
export function varint(n: number): number[] {
  const bytes: number[] = [];
  do {
    bytes.push((n % 128) | (n >= 128 ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n);
  return bytes;
}

/** An OFS_DELTA's distance back to its base (big-endian, each continuation one less). */
export function ofsDistance(distance: number): number[] {
  const bytes = [distance & 0x7f];
  for (let rest = distance >> 7; rest; rest >>= 7) bytes.unshift(0x80 | (--rest & 0x7f));
  return bytes;
}

/** A whole object: header then zlib stream. */
export const object = (type: number, data: Uint8Array): Buffer => Buffer.concat([objectHeader(type, data.length), deflateSync(data, { level: 1 })]);

/** The pack's header, its objects, and its SHA-1 trailer. */
export function packOf(objects: Uint8Array[], count = objects.length): Buffer {
  const head = Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, count >>> 24, (count >> 16) & 255, (count >> 8) & 255, count & 255]);
  const body = Buffer.concat([head, ...objects]);
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}

/** A commit's body: its tree, its parents, then `extraHeaders` after the committer. */
export function commitBody(parents: string[], message: string, extraHeaders = ""): Buffer {
  const lines = [
    `tree ${EMPTY_TREE}`,
    ...parents.map((p) => `parent ${p}`),
    "author A <a@example.test> 1700000000 +0000",
    "committer A <a@example.test> 1700000000 +0000",
  ];
  return Buffer.from(`${lines.join("\n")}\n${extraHeaders}\n${message}\n`);
}

export const gitId = (type: string, body: Uint8Array): string => createHash("sha1").update(`${type} ${body.length}\0`).update(body).digest("hex");

/** The pkt-line command list of a push asking for report-status, flush included. */
export function commandList(commands: Array<{ old: string; new: string; ref: string }>): Buffer {
  const lines = commands.map((c, i) => {
    const line = `${c.old} ${c.new} ${c.ref}${i === 0 ? "\0report-status" : ""}\n`;
    return `${(line.length + 4).toString(16).padStart(4, "0")}${line}`;
  });
  return Buffer.from(`${lines.join("")}0000`);
}
