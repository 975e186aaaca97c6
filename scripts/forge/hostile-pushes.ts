/**
 * Pushes a hostile box would write by hand to the git gateway's receive-pack, each with the
 * refusal git must print: the gateway's tests send them to the gateway in Node and, through
 * the local stack's route, to the Worker in workerd.
 *
 * @example for (const push of hostilePushes(branch)) expect((await rawPush(url, headers, push.parts)).text).toContain(push.refusal);
 */
import { request } from "node:http";
import { PACK_LIMITS } from "../../core/git-gateway/pack";
import { BLOB, COMMIT, commandList, commitBody, gitId, OFS_DELTA, object, objectHeader, ofsDistance, packOf, varint } from "./crafted-pack";

/** The task branch as the forge has it: its ref and tip, and a commit and tree of the base branch. */
export interface PushTarget {
  ref: string;
  tip: string;
  base: string;
  tree: string;
}

export interface HostilePush {
  name: string;
  /** The request body's parts, each its own write. */
  parts: Uint8Array[];
  /** A pause between the parts; the request held open after the last unless `end`. */
  pauseMs?: number;
  end?: boolean;
  /** What the refusal says. */
  refusal: string;
}

/** A commit of the base's tree on the base: not a descendant of the task branch. */
export const rewrite = (target: PushTarget, message: string) =>
  Buffer.from(
    commitBody([target.base], message)
      .toString()
      .replace(/^tree \S+/, `tree ${target.tree}`),
  );

/** The update of the task branch to `tip`, and the pack. */
const update = (target: PushTarget, tip: string, pack: Uint8Array) => [commandList([{ old: target.tip, new: tip, ref: target.ref }]), pack];

const MiB = 1024 * 1024;

export function hostilePushes(target: PushTarget): HostilePush[] {
  const rewritten = rewrite(target, "rewrites the task branch");
  const large = commitBody([target.base], "a".repeat(MiB - 300));
  // One commit of exactly 1 MiB, then deltas that copy all of it again (only the third length byte set).
  const whole = commitBody([target.base], "b");
  const base = commitBody([target.base], "b".repeat(MiB - whole.length + 1));
  const baseObject = object(COMMIT, base);
  const copyAll = Buffer.from([...varint(base.length), ...varint(base.length), 0x80 | 0x40, 0x10]);
  const deltaStream = object(BLOB, copyAll).subarray(objectHeader(BLOB, copyAll.length).length);
  const rebuilt: Buffer[] = [baseObject];
  for (let i = 0, offset = 12 + baseObject.length; i < 40; i++) {
    const delta = Buffer.concat([objectHeader(OFS_DELTA, copyAll.length), Buffer.from(ofsDistance(offset - 12)), deltaStream]);
    rebuilt.push(delta);
    offset += delta.length;
  }
  const zeros = object(BLOB, Buffer.alloc(100 * MiB));
  const declared = Buffer.concat([objectHeader(BLOB, 2 ** 40), object(BLOB, Buffer.alloc(16)).subarray(1)]);
  const kept = `the pack's commits are larger than the ${PACK_LIMITS.keptBytes / MiB} MiB the gateway checks`;
  const inflated = `the pack inflates to more than the ${PACK_LIMITS.inflatedBytes / MiB} MiB the gateway checks`;
  return [
    {
      name: "a byte after the pack's end, the request held open",
      parts: [...update(target, gitId("commit", rewritten), packOf([object(COMMIT, rewritten)])), Buffer.from("x")],
      pauseMs: 300,
      end: false,
      refusal: "the pushed pack could not be read (data after the pack's end)",
    },
    {
      name: "200 commits of a megabyte of one byte (a 200 KB pack)",
      parts: update(target, gitId("commit", large), packOf(new Array(200).fill(object(COMMIT, large)))),
      refusal: kept,
    },
    { name: "40 deltas that rebuild one 1 MiB commit", parts: update(target, gitId("commit", base), packOf(rebuilt)), refusal: kept },
    {
      name: "three blobs of 100 MiB of zeros (300 KB of deflate)",
      parts: update(target, gitId("commit", rewritten), packOf([zeros, zeros, zeros, object(COMMIT, rewritten)])),
      refusal: inflated,
    },
    { name: "a blob that declares a terabyte", parts: update(target, gitId("commit", rewritten), packOf([declared])), refusal: inflated },
    {
      name: `${PACK_LIMITS.objects + 1} empty blobs`,
      parts: update(target, gitId("commit", rewritten), packOf(new Array(PACK_LIMITS.objects + 1).fill(object(BLOB, Buffer.alloc(0))))),
      refusal: `the pack holds more than ${PACK_LIMITS.objects} objects to check`,
    },
  ];
}

/**
 * A push written by hand, chunked: each part is its own write, `pauseMs` apart; the request is
 * held open after the last part unless `end`. → the answer (status and text) once its report
 * has arrived (a refusal's ends in a flush), or the answer has ended.
 */
export function rawPush(
  url: string,
  headers: Record<string, string>,
  push: Pick<HostilePush, "parts" | "pauseMs" | "end">,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { ...headers, "transfer-encoding": "chunked" } }, (res) => {
      let text = "";
      const done = () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, text });
      };
      res.on("data", (c: Buffer) => {
        text += c.toString("latin1");
        if (text.endsWith("0000")) done();
      });
      res.on("end", done);
    });
    req.on("error", reject);
    (async () => {
      for (const [i, part] of push.parts.entries()) {
        if (i && push.pauseMs) await new Promise((r) => setTimeout(r, push.pauseMs));
        req.write(part);
      }
      if (push.end !== false) req.end();
    })().catch(reject);
  });
}
