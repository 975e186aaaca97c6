/**
 * bench/git-gateway: what the git gateway costs a task's box (TASK-014, TASK-017).
 *
 * A repository of FILES text files on the local forge; real git clones it and pushes to it
 * through the gateway (core/git-gateway served by node:http, as in its tests) and directly
 * with the installation token. A push changes CHANGED files in one commit and fast-forwards
 * the task branch, so the gateway reads the pack's commits before the forge takes it. Prints
 * the medians of each and the gateway's ratio (goal: at most 1.3).
 *
 *   npx tsx bench/git-gateway.ts [--files 200] [--changed 20] [--repeat 10]
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gatewayFixture } from "../scripts/forge/gateway-fixture";
import { git, remote, workDir } from "../scripts/forge/test-support";
import { quantile } from "./bench-stack";

const { values } = parseArgs({
  options: { files: { type: "string", default: "200" }, changed: { type: "string", default: "20" }, repeat: { type: "string", default: "10" } },
});
const FILES = Number(values.files);
const CHANGED = Number(values.changed);
const REPEAT = Number(values.repeat);

const line = (i: number, n: number) => `export const value${n} = "${i}-${n}-${"x".repeat(40)}";\n`;
const files = Object.fromEntries(
  Array.from({ length: FILES }, (_, i) => [`src/dir${i % 10}/file${i}.ts`, Array.from({ length: 60 }, (_, n) => line(i, n)).join("")]),
);
const fx = await gatewayFixture({ account: "acme", repos: { bench: files }, taskKey: "BENCH-1", record: false });
const work = workDir();
try {
  const viaGateway = fx.boxRemote();
  const direct = remote(fx.forge.gitUrl, "acme/bench", fx.grant.token);
  const timed = async (run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    return performance.now() - started;
  };

  // The order alternates: whichever way goes first in a round meets a colder forge.
  const order = (i: number) => (i % 2 ? (["direct", "gateway"] as const) : (["gateway", "direct"] as const));
  const urls = { gateway: viaGateway, direct };
  const clones = { gateway: [] as number[], direct: [] as number[] };
  for (let i = 0; i < REPEAT; i++) {
    for (const name of order(i)) {
      const url = urls[name];
      const dir = join(work, `clone-${name}-${i}`);
      clones[name].push(await timed(() => git(["clone", "--quiet", url, dir])));
      rmSync(dir, { recursive: true, force: true });
    }
  }

  // One clone per way, each pushing its own branch: the task branch through the gateway. Their
  // changes differ, so no commit is already on the forge (which would send the gateway to the
  // forge's compare API instead of the pack's commits).
  const pushes = { gateway: [] as number[], direct: [] as number[] };
  const branches = { gateway: "refs/heads/factory/task/BENCH-1", direct: "refs/heads/direct" };
  const dirs = { gateway: join(work, "push-gateway"), direct: join(work, "push-direct") };
  await git(["clone", "--quiet", viaGateway, dirs.gateway]);
  await git(["clone", "--quiet", direct, dirs.direct]);
  for (const name of ["gateway", "direct"] as const) await git(["push", "--quiet", "origin", `HEAD:${branches[name]}`], dirs[name]);
  for (let i = 0; i < REPEAT; i++) {
    for (const name of order(i)) {
      const dir = dirs[name];
      for (let f = 0; f < CHANGED; f++) {
        const n = (i * CHANGED + f) % FILES;
        mkdirSync(join(dir, `src/dir${n % 10}`), { recursive: true });
        writeFileSync(join(dir, `src/dir${n % 10}/file${n}.ts`), `// round ${i} (${name})\n${line(n, i).repeat(60)}`);
      }
      await git(["commit", "--quiet", "-am", `round ${i}`], dir);
      pushes[name].push(await timed(() => git(["push", "--quiet", "origin", `HEAD:${branches[name]}`], dir)));
    }
  }

  const median = (xs: number[]) =>
    quantile(
      [...xs].sort((a, b) => a - b),
      0.5,
    );
  console.log(`git gateway: ${FILES} files, pushes of ${CHANGED} changed files, ${REPEAT} runs each (local forge, real git)`);
  for (const [what, figures] of [
    ["clone", clones],
    ["push (task branch fast-forward)", pushes],
  ] as const) {
    const ratio = median(figures.gateway) / median(figures.direct);
    console.log(
      `${what.padEnd(34)} gateway median ${median(figures.gateway).toFixed(0)} ms   direct median ${median(figures.direct).toFixed(0)} ms   ratio ${ratio.toFixed(2)}x${ratio <= 1.3 ? "" : "  (over the 1.3x goal)"}`,
    );
  }
} finally {
  await fx.close();
  rmSync(work, { recursive: true, force: true });
}
