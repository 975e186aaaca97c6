/**
 * The gateway against a box that writes its own bytes (root in its box, the run's credential
 * in hand): crafted commits, raw requests held open, packs built to cost. Each refused push
 * leaves the forge's refs as they were and reads as git's own refusal.
 */

import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMIT, commandList, gitId, object, packOf } from "../../scripts/forge/crafted-pack";
import { type GatewayFixture, gatewayFixture } from "../../scripts/forge/gateway-fixture";
import { hostilePushes, type PushTarget, rawPush, rewrite } from "../../scripts/forge/hostile-pushes";
import { git, remote, workDir } from "../../scripts/forge/test-support";

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

const target = (): PushTarget => ({ ref: TASK, tip: reviewed, base, tree });

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

  for (const push of hostilePushes({ ref: TASK, tip: "0".repeat(40), base: "0".repeat(40), tree: "0".repeat(40) })) {
    it(`TASK-017: refused, the forge unchanged: ${push.name}`, async () => {
      const crafted = hostilePushes(target()).find((p) => p.name === push.name)!;
      const before = await fx.forgeRefs();
      const answer = await rawPush(fx.receivePackUrl, fx.pushHeaders, crafted);
      expect(answer.status).toBe(200);
      expect(answer.text).toContain(`ng ${TASK} ${crafted.refusal}`);
      expect(await fx.forgeRefs()).toEqual(before);
    });
  }

  it("TASK-017: without the byte after its end, the same rewrite is refused as a non-fast-forward: the byte was what the test turned on", async () => {
    const body = rewrite(target(), "rewrites the task branch");
    const answer = await rawPush(fx.receivePackUrl, fx.pushHeaders, {
      parts: [commandList([{ old: reviewed, new: gitId("commit", body), ref: TASK }]), packOf([object(COMMIT, body)])],
    });
    expect(answer.text).toMatch(/ng refs\/heads\/factory\/task\/APP-1 non-fast-forward/);
    expect((await fx.forgeRefs())[TASK]).toBe(reviewed);
  });
});
