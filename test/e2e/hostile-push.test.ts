import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isolateHeap, workerdPids } from "../../bench/workerd-cpu";
import { hostilePushes, rawPush } from "../../scripts/forge/hostile-pushes";
import { git, workDir } from "../../scripts/forge/test-support";
import { script } from "./agents";
import { containerStack } from "./container-stack";
import { boxesWithVariable, until } from "./sandbox-box";
import { docker, shell, taskSetting } from "./task-setting";

/**
 * The git gateway as the Worker serves it on the local stack (GIT_GATEWAY_URL), pushed to as
 * a hostile box would with its run's credential: a commit with a parent git does not count,
 * a byte past the pack's end, packs built to cost. Every push is refused in git's words, the
 * forge's refs stay, `/api/health` answers throughout, never a second slower than its slowest
 * answer before the pushes (on a loaded machine that one is slow too), and workerd's memory is
 * sampled (docs/benchmarks.md).
 */
const boxes = containerStack({});
const { forge, settings, codingSetup, fileTask, readTask } = taskSetting(boxes);

/** workerd's resident memory, in MiB (all its processes of this stack). */
function rssMiB(pids: number[]): number {
  let kib = 0;
  for (const pid of pids) kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  return kib / 1024;
}

/**
 * Until stopped: polls `/api/health` (the slowest answer before any push, and during them),
 * reads the Worker isolate's heap every 20 ms (its live peak over the idle heap, collected
 * first, per push) and workerd's memory.
 */
async function watch(pids: number[]) {
  const heap = await isolateHeap(pids, "guilds-platform");
  await heap.collectGarbage();
  const idle = await heap.read();
  const seen = {
    idleMiB: idle.usedMiB,
    idleSlowestMs: 0,
    slowestMs: 0,
    peakMiB: idle.usedMiB,
    peakRssMiB: 0,
    answers: 0,
    during: "idle",
    byPush: {} as Record<string, number>,
  };
  let before = idle.usedMiB;
  let stopped = false;
  const health = (async () => {
    while (!stopped) {
      const started = performance.now();
      const res = await fetch(`${boxes.stack.apiUrl}/api/health`);
      await res.text();
      expect(res.status).toBe(200);
      const took = performance.now() - started;
      if (seen.during === "idle") seen.idleSlowestMs = Math.max(seen.idleSlowestMs, took);
      else seen.slowestMs = Math.max(seen.slowestMs, took);
      seen.peakRssMiB = Math.max(seen.peakRssMiB, rssMiB(pids));
      seen.answers++;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const memory = (async () => {
    while (!stopped) {
      const { usedMiB } = await heap.read();
      seen.peakMiB = Math.max(seen.peakMiB, usedMiB);
      seen.byPush[seen.during] = Math.max(seen.byPush[seen.during] ?? 0, Math.round(usedMiB - before));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    /** Resolves once `/api/health` has answered 20 times before any push: the machine's own pace. */
    async paced() {
      await until("20 health answers before the pushes", async () => seen.answers >= 20, 60_000);
    },
    /** Collects the isolate's garbage, then counts the next readings against what is left, for `what`. */
    async before(what: string) {
      await heap.collectGarbage();
      before = (await heap.read()).usedMiB;
      seen.during = what;
    },
    async stop() {
      stopped = true;
      await Promise.all([health, memory]);
      heap.close();
      return seen;
    },
  };
}

describe("hostile pushes through the stack's gateway route", () => {
  it("TASK-014 / TASK-017: a box's crafted pushes are all refused, the forge unchanged, health answering, workerd's memory bounded", async () => {
    await settings({});
    const setup = await codingSetup("Pusher");
    await script(
      setup.agent.model,
      [
        {
          tool_calls: [
            shell(
              "git commit -q --allow-empty -m 'the agent works' && git push -q origin HEAD:refs/heads/$(git rev-parse --abbrev-ref HEAD) 2>&1; echo exit=$?",
            ),
          ],
        },
        { content: "Pushed; waiting for review." },
      ],
      boxes.target,
    );
    const task = await fileTask(setup, "Hold the branch");
    const ref = `refs/heads/factory/task/${task.key}`;
    await until("the task's draft pull request", async () => (await readTask(task.id)).pull_request !== null, 240_000);
    const [box] = boxesWithVariable(setup.agent.secretName);
    expect(box, "the task's box runs").toBeDefined();
    const tokens = JSON.parse(docker("exec", box!, "cat", "/run/guilds/git-tokens.json")) as Record<string, { token: string }>;
    const credential = Object.values(tokens)[0]!.token;

    // The box's remote, from the host: the stack's route with the run's credential.
    const route = `${boxes.stack.apiUrl}/api/git-gateway/tasks/${task.id}/${setup.fullName}.git`;
    const remote = new URL(route);
    remote.username = "x";
    remote.password = credential;
    const dir = workDir();
    await git(["clone", "--quiet", remote.toString(), dir]);
    const base = (await git(["rev-parse", "HEAD"], dir)).trim();
    const tree = (await git(["rev-parse", "HEAD^{tree}"], dir)).trim();
    await git(["fetch", "--quiet", "origin", ref], dir);
    await git(["reset", "--quiet", "--hard", "FETCH_HEAD"], dir);
    await git(["commit", "--quiet", "--allow-empty", "-m", "a reviewer's fix"], dir);
    await git(["push", "--quiet", "origin", `HEAD:${ref}`], dir);
    const reviewed = (await git(["rev-parse", "HEAD"], dir)).trim();
    const refs = async () =>
      ((await forge("GET", `/repos/${setup.fullName}`)).json.refs as Array<{ ref: string; sha: string }>).map((r) => `${r.ref} ${r.sha}`).sort();
    const before = await refs();
    expect(before).toContain(`${ref} ${reviewed}`);

    const pids = workerdPids(boxes.stateDir);
    expect(pids.length).toBeGreaterThan(0);
    const idleMiB = rssMiB(pids);
    const watching = await watch(pids);

    // A parent line after the committer: git (and the forge) ignore it; so does the gateway.
    writeFileSync(
      join(dir, "forged"),
      `tree ${tree}\nparent ${base}\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\nparent ${reviewed}\n\nmsg\n`,
    );
    const forged = (await git(["hash-object", "-t", "commit", "-w", join(dir, "forged")], dir)).trim();
    const pushed = await git(["push", "--force", "origin", `${forged}:${ref}`], dir).then(
      () => "accepted",
      (error: Error) => error.message,
    );
    expect(pushed).toMatch(/\[remote rejected\] .* \(non-fast-forward: this task does not allow force pushes/);

    await watching.paced();
    const headers = { authorization: `Basic ${btoa(`x:${credential}`)}`, "content-type": "application/x-git-receive-pack-request" };
    for (const push of hostilePushes({ ref, tip: reviewed, base, tree })) {
      await watching.before(push.name);
      const answer = await rawPush(`${route}/git-receive-pack`, headers, push);
      expect(answer.status, push.name).toBe(200);
      expect(answer.text, push.name).toContain(`ng ${ref} ${push.refusal}`);
      expect(await refs(), push.name).toEqual(before);
    }
    const seen = await watching.stop();
    console.log(
      `hostile pushes on the stack: the Worker isolate's memory (JS heap and buffers) ${seen.idleMiB.toFixed(0)} MiB idle, at most ${seen.peakMiB.toFixed(0)} MiB ` +
        `(MiB over what each push found, collected: ${JSON.stringify(seen.byPush)}); workerd RSS idle ${idleMiB.toFixed(0)} MiB, peak ${seen.peakRssMiB.toFixed(0)} MiB; ` +
        `slowest /api/health ${seen.slowestMs.toFixed(0)} ms of ${seen.answers} (before the pushes ${seen.idleSlowestMs.toFixed(0)} ms)`,
    );
    expect(seen.slowestMs).toBeLessThan(seen.idleSlowestMs + 1000);
    // What a push adds to the isolate, its garbage included: the caps' 16 MiB kept, a chunk, the reader.
    for (const [push, mib] of Object.entries(seen.byPush)) expect(mib, push).toBeLessThan(40);
    expect(seen.peakMiB).toBeLessThan(128);
    // The run's own git still works: a fast-forward through the same route is taken.
    await git(["commit", "--quiet", "--allow-empty", "-m", "after the storm"], dir);
    await git(["push", "--quiet", "origin", `HEAD:${ref}`], dir);
    expect(await refs()).toContain(`${ref} ${(await git(["rev-parse", "HEAD"], dir)).trim()}`);
  }, 600_000);
});
