/**
 * A pushed commit as git itself reads it: its id, its parents, and a commit sent as a delta
 * of another. The gateway's fast-forward check (check-push.ts) stands on these, so each reads
 * no more than git does: a parent git would not count is never counted here.
 */

export class PackError extends Error {
  override readonly name: string = "PackError";
}

/** A pack past what the gateway reads of one push (pack.ts PACK_LIMITS): its message is the whole refusal. */
export class PackLimitError extends PackError {
  override readonly name = "PackLimitError";
}

/** A commit larger than this is refused: git's own are kilobytes. */
export const MAX_COMMIT_BYTES = 1024 * 1024;

const TREE_LINE = /^tree [0-9a-f]{40}$/;
const PARENT_LINE = /^parent ([0-9a-f]{40})$/;
const latin1 = new TextDecoder("latin1");

/**
 * A commit's parents as git counts them (parse_commit_buffer): the header opens with
 * `tree <id>`, and only the `parent <id>` lines that follow it directly are parents. A
 * `parent` line anywhere after (past `author`, `committer` or any other header) is an
 * unknown header that git, `fsck --strict` and a receiving forge accept and ignore; a body
 * that does not open with its tree has no parents at all.
 *
 * @example commitParents(utf8("tree …\nparent A\nauthor …\ncommitter …\nparent B\n\nmsg")) // ["A"]
 */
export function commitParents(body: Uint8Array): string[] {
  const parents: string[] = [];
  let at = 0;
  for (let line = 0; at < body.length; line++) {
    let end = body.indexOf(0x0a, at);
    if (end === -1) end = body.length;
    // Tree and parent lines are 45 and 47 bytes: a longer line is neither.
    const text = end - at <= 48 ? latin1.decode(body.subarray(at, end)) : "";
    if (line === 0) {
      if (!TREE_LINE.test(text)) return [];
    } else {
      const parent = PARENT_LINE.exec(text);
      if (!parent) break;
      parents.push(parent[1]!);
    }
    at = end + 1;
  }
  return parents;
}

/** A commit's object id: SHA-1 of `commit <size>\0<body>`. */
export async function commitId(body: Uint8Array): Promise<string> {
  const head = new TextEncoder().encode(`commit ${body.length}\0`);
  const whole = new Uint8Array(head.length + body.length);
  whole.set(head, 0);
  whole.set(body, head.length);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", whole));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** git's delta format: base size, result size, then copy (from the base) and insert instructions. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (at >= delta.length || shift > 49) throw new PackError("a delta is corrupt");
      const c = delta[at++]!;
      value += (c & 0x7f) * 2 ** shift;
      if (!(c & 0x80)) return value;
    }
  };
  if (varint() !== base.length) throw new PackError("a delta does not fit its base");
  const size = varint();
  if (size > MAX_COMMIT_BYTES) throw new PackError("a commit of the pack is too large");
  const out = new Uint8Array(size);
  let written = 0;
  while (at < delta.length) {
    const op = delta[at++]!;
    if (op & 0x80) {
      let offset = 0;
      let length = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) offset += (delta[at++] ?? 0) * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (op & (0x10 << i)) length += (delta[at++] ?? 0) * 2 ** (8 * i);
      if (length === 0) length = 0x10000;
      if (at > delta.length || offset + length > base.length || written + length > size) throw new PackError("a delta is corrupt");
      out.set(base.subarray(offset, offset + length), written);
      written += length;
    } else if (op) {
      if (at + op > delta.length || written + op > size) throw new PackError("a delta is corrupt");
      out.set(delta.subarray(at, at + op), written);
      at += op;
      written += op;
    } else {
      throw new PackError("a delta is corrupt");
    }
  }
  if (written !== size) throw new PackError("a delta is corrupt");
  return out;
}
