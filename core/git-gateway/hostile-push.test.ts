/**
 * The gateway against a box that writes its own bytes (root in its box, the run's credential
 * in hand): crafted commits, raw requests held open, packs built to cost. Each refused push
 * leaves the forge's refs as they were and reads as git's own refusal.
 */

import { rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOB, COMMIT, commandList, commitBody, gitId, OFS_DELTA, object, objectHeader, ofsDistance, packOf, varint } from "../../scripts/forge/crafted-pack";
import { type GatewayFixture, gatewayFixture } from "../../scripts/forge/gateway-fixture";
import { git, remote, workDir } from "../../scripts/forge/test-support";
import { PACK_LIMITS } from "./pack";

const TASK = "refs/heads/factory/task/APP-1";
let fx: GatewayFixture;
let dir: string;
/** main's tip and tree, and the task branch's tip after a reviewer's commit. */
let base: string;
let tree: string;
let reviewed: string;

beforeAll(async () => {
  fx = await gatewayFixture({ account: "acme", repos: { app: { "README.md": "# app\n" } } });
  dir = workDir();
  const box = join(dir, "box");
  await git(["clone", "--quiet", fx.boxRemote(), box]);
  base = (await git(["rev-parse", "HEAD"], box)).trim();
  tree = (await git(["rev-parse", "HEAD^{tree}"], box)).trim();
  await git(["commit", "--quiet", "--allow-empty", "-m", "the agent's work"], box);
  await git(["push", "--quiet", "origin", `HEAD:${TASK}`], box);
  // A reviewer adds a commit to the task branch on the forge.
  const reviewer = join(dir, "reviewer");
  await git(["clone", "--quiet", remote(fx.forge.gitUrl, "acme/app", fx.grant.token), reviewer]);
  await git(["fetch", "--quiet", "origin", TASK], reviewer);
  await git(["reset", "--quiet", "--hard", "FETCH_HEAD"], reviewer);
  await git(["commit", "--quiet", "--allow-empty", "-m", "a reviewer's fix"], reviewer);
  await git(["push", "--quiet", "origin", `HEAD:${TASK}`], reviewer);
  reviewed = (await git(["rev-parse", "HEAD"], reviewer)).trim();
});
afterAll(async () => {
  await fx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * A push written by hand, chunked: each part is its own write, `pauseMs` apart; the request is
 * held open after the last part unless `end`. → the gateway's answer (status and text) once its
 * report has arrived (a refusal's ends in a flush), or the answer has ended.
 */
function rawPush(parts: Uint8Array[], options: { end?: boolean; pauseMs?: number } = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(fx.receivePackUrl, { method: "POST", headers: { ...fx.pushHeaders, "transfer-encoding": "chunked" } }, (res) => {
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
      for (const [i, part] of parts.entries()) {
        if (i && options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
        req.write(part);
      }
      if (options.end !== false) req.end();
    })().catch(reject);
  });
}

/** A commit of main's tree on main's tip: not a descendant of the reviewed task branch. */
const rewritten = (message: string) =>
  commitBody([base], message)
    .toString()
    .replace(/^tree \S+/, `tree ${tree}`);

describe("hostile pushes through the gateway", () => {
  it("TASK-017: a parent line after the committer is not a parent: the rewrite is refused and the reviewer's commit stays", async () => {
    const box = join(dir, "box");
    await git(["fetch", "--quiet", "origin", TASK], box);
    const body = `tree ${tree}\nparent ${base}\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\nparent ${reviewed}\n\nmsg\n`;
    writeFileSync(join(dir, "forged"), body);
    const forged = (await git(["hash-object", "-t", "commit", "-w", join(dir, "forged")], box)).trim();
    const before = await fx.forgeRefs();
    const refused = await git(["push", "--force", "origin", `${forged}:${TASK}`], box).then(
      () => "accepted",
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/\[remote rejected\] .*factory\/task\/APP-1 \(non-fast-forward: this task does not allow force pushes/);
    expect(await fx.forgeRefs()).toEqual(before);
    expect(before[TASK]).toBe(reviewed);
  });

  it("TASK-017: a byte after the pack's end, the request held open: refused, and the forge never had the whole pack", async () => {
    const body = Buffer.from(rewritten("rewrites the task branch"));
    const id = gitId("commit", body);
    const before = await fx.forgeRefs();
    const answer = await rawPush([commandList([{ old: reviewed, new: id, ref: TASK }]), packOf([object(COMMIT, body)]), Buffer.from("x")], {
      end: false,
      pauseMs: 300,
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toMatch(/ng refs\/heads\/factory\/task\/APP-1 the pushed pack could not be read \(data after the pack's end\)/);
    expect(await fx.forgeRefs()).toEqual(before);
  });

  it("TASK-017: the same push without the extra byte is refused as a non-fast-forward (the byte was what the test turned on)", async () => {
    const body = Buffer.from(rewritten("rewrites the task branch again"));
    const answer = await rawPush([commandList([{ old: reviewed, new: gitId("commit", body), ref: TASK }]), packOf([object(COMMIT, body)])]);
    expect(answer.text).toMatch(/ng refs\/heads\/factory\/task\/APP-1 non-fast-forward/);
    expect((await fx.forgeRefs())[TASK]).toBe(reviewed);
  });

  /** Pushes `pack` as an update of the task branch to `tip`; → the refusal's text, the forge unchanged. */
  async function refusedPush(pack: Uint8Array, tip: string): Promise<string> {
    const before = await fx.forgeRefs();
    const answer = await rawPush([commandList([{ old: reviewed, new: tip, ref: TASK }]), pack]);
    expect(answer.status).toBe(200);
    expect(await fx.forgeRefs()).toEqual(before);
    return answer.text;
  }

  it("TASK-017: 200 commits of a megabyte of one byte each (a 200 KB pack) are refused past the bytes the gateway keeps", async () => {
    const body = commitBody([base], "a".repeat(1024 * 1024 - 300));
    const pack = packOf(new Array(200).fill(object(COMMIT, body)));
    expect(pack.length).toBeLessThan(1024 * 1024);
    const text = await refusedPush(pack, gitId("commit", body));
    expect(text).toContain(`the pack's commits are larger than the ${PACK_LIMITS.keptBytes / 2 ** 20} MiB the gateway checks`);
  });

  it("TASK-017: deltas that rebuild one large commit again and again are refused past the bytes kept", async () => {
    const first = commitBody([base], "b");
    const large = commitBody([base], "b".repeat(1024 * 1024 - first.length + 1));
    expect(large.length).toBe(1024 * 1024);
    const baseObject = object(COMMIT, large);
    // Copy the whole base (offset 0, length 0x100000: only the third length byte is set).
    const delta = Buffer.from([...varint(large.length), ...varint(large.length), 0x80 | 0x40, 0x10]);
    const objects: Buffer[] = [baseObject];
    let offset = 12 + baseObject.length;
    for (let i = 0; i < 40; i++) {
      const deltaObject = Buffer.concat([
        objectHeader(OFS_DELTA, delta.length),
        Buffer.from(ofsDistance(offset - 12)),
        object(BLOB, delta).subarray(objectHeader(BLOB, delta.length).length),
      ]);
      objects.push(deltaObject);
      offset += deltaObject.length;
    }
    const text = await refusedPush(packOf(objects), gitId("commit", large));
    expect(text).toContain("the pack's commits are larger than");
  });

  it("TASK-017: objects that inflate past the gateway's budget are refused, a huge declared size at once", async () => {
    const zeros = object(BLOB, Buffer.alloc(100 * 1024 * 1024));
    expect(zeros.length).toBeLessThan(1024 * 1024);
    const body = Buffer.from(rewritten("after the blobs"));
    const text = await refusedPush(packOf([zeros, zeros, zeros, object(COMMIT, body)]), gitId("commit", body));
    expect(text).toContain(`the pack inflates to more than the ${PACK_LIMITS.inflatedBytes / 2 ** 20} MiB the gateway checks`);
    const declared = Buffer.concat([objectHeader(BLOB, 2 ** 40), object(BLOB, Buffer.alloc(16)).subarray(1)]);
    expect(await refusedPush(packOf([declared]), gitId("commit", body))).toContain("the pack inflates to more than");
  });

  it("TASK-017: a pack of more objects than the gateway counts is refused", async () => {
    const empty = object(BLOB, Buffer.alloc(0));
    const pack = packOf(new Array(PACK_LIMITS.objects + 1).fill(empty));
    expect(await refusedPush(pack, "c".repeat(40))).toContain(`the pack holds more than ${PACK_LIMITS.objects} objects to check`);
  });
});
