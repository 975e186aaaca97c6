/**
 * The gradual rollout of a new Worker version, apart from wrangler and HTTP (the platform is
 * injected: scripts/deploy/wrangler-platform.ts in a deploy, a fake in the tests). Upload the
 * version, send it a growing share of the traffic (e.g. 10%, 50%), then deploy the same code
 * whole for 100%; check health and a smoke run against the new version after each step, and on
 * any failure put the previous version back at 100%.
 *
 * The last step is a whole deploy, not `versions deploy <new>@100%`, because Worker versions do
 * not carry the Containers' images and settings: only `wrangler deploy` builds, pushes and
 * applies them (docs/decisions/0025-release-path.md).
 */

/** One version's share of a deployment, as wrangler's `deployments status --json` lists it. */
export interface VersionTraffic {
  version_id: string;
  percentage: number;
}

/** A deployment of the Worker: which versions serve, with what share. */
export interface Deployment {
  id?: string;
  created_on?: string;
  versions: VersionTraffic[];
}

export type UploadResult = { versionId: string } | { needsFullDeploy: string };

export interface RolloutPlatform {
  /** The deployment serving now; null when the Worker has never been deployed. */
  currentDeployment(): Promise<Deployment | null>;
  /** `wrangler versions upload`: the new version, serving nothing yet; or why wrangler wants a full deploy. */
  upload(): Promise<UploadResult>;
  /** Why the checks could not reach an uploaded version (e.g. no URL known), or null. */
  checkable(): string | null;
  /** `wrangler deploy`: the code at 100% with the Containers' images and settings; its version id. */
  deployAtOnce(): Promise<string>;
  /** `wrangler versions deploy` with these shares. */
  deploy(traffic: VersionTraffic[]): Promise<void>;
  /** What is wrong with the version's /api/health, or null when it reports ok at the newest migration. */
  health(versionId: string): Promise<string | null>;
  /** What went wrong in a smoke run against the version, or null when it passed (or is not configured). */
  smoke(versionId: string): Promise<string | null>;
  /** Time for a step's share to meet real traffic before the next step. */
  soak(): Promise<void>;
  log(line: string): void;
}

export type RolloutResult =
  | { ok: true; versionId: string; steps: number[] }
  | { ok: false; problem: string; versionId?: string; rolledBackTo?: string; rollbackProblem?: string };

/** Production goes out in steps; other environments (staging) at once. */
export function defaultSteps(env: string): number[] {
  return env === "production" ? [10, 50, 100] : [100];
}

/**
 * Reads `--steps`: percentages of traffic for the new version, rising, ending at 100.
 *
 * @example parseSteps("10,50,100") // { ok: true, steps: [10, 50, 100] }
 */
export function parseSteps(text: string): { ok: true; steps: number[] } | { ok: false; message: string } {
  const parts = text.split(",").map((p) => p.trim().replace(/%$/, ""));
  const steps = parts.map(Number);
  const bad = parts.find((p, i) => !/^\d+$/.test(p) || (steps[i] as number) < 1 || (steps[i] as number) > 100);
  if (bad !== undefined || steps.length === 0)
    return { ok: false, message: `--steps takes percentages from 1 to 100 such as 10,50,100, got ${JSON.stringify(text)}` };
  if (steps.some((s, i) => i > 0 && s <= (steps[i - 1] as number))) return { ok: false, message: `--steps must rise, got ${JSON.stringify(text)}` };
  if (steps.at(-1) !== 100) return { ok: false, message: `--steps must end at 100, got ${JSON.stringify(text)}` };
  return { ok: true, steps };
}

/**
 * The shares of one step: the new version at `percent`, the previous one the rest.
 *
 * @example stepTraffic("new", "old", 10) // [{ version_id: "new", percentage: 10 }, { version_id: "old", percentage: 90 }]
 */
export function stepTraffic(newId: string, oldId: string, percent: number): VersionTraffic[] {
  if (percent >= 100 || newId === oldId) return [{ version_id: newId, percentage: 100 }];
  return [
    { version_id: newId, percentage: percent },
    { version_id: oldId, percentage: 100 - percent },
  ];
}

/** The version serving all traffic, or undefined for a split deployment. */
export function soleVersion(deployment: Deployment): string | undefined {
  const [only, ...rest] = deployment.versions;
  return only && rest.length === 0 && only.percentage === 100 ? only.version_id : undefined;
}

export function describeTraffic(traffic: VersionTraffic[]): string {
  return traffic.map((t) => `${t.version_id}@${t.percentage}%`).join(" ");
}

/** Uploads and rolls out a new version in `steps`; any failed step puts the previous version back. */
export async function rollout(platform: RolloutPlatform, steps: number[]): Promise<RolloutResult> {
  const current = await platform.currentDeployment();
  const previous = current ? soleVersion(current) : undefined;
  if (current && !previous) {
    return {
      ok: false,
      problem: `a rollout is half-way (${describeTraffic(current.versions)}): finish it with \`wrangler versions deploy <id>@100%\` or run \`npm run rollback\` first`,
    };
  }

  let upload: UploadResult = { needsFullDeploy: previous ? "one step of 100%" : "the Worker has no deployment yet" };
  if (previous && steps.length > 1) {
    try {
      upload = await platform.upload();
    } catch (error) {
      return { ok: false, problem: `upload failed: ${(error as Error).message}; traffic is unchanged` };
    }
  }

  if ("needsFullDeploy" in upload) {
    // A first deploy or a Durable Object migration cannot go out as an uploaded version.
    platform.log(`${upload.needsFullDeploy}: deploying at 100% at once with \`wrangler deploy\`.`);
    let versionId: string;
    try {
      versionId = await platform.deployAtOnce();
    } catch (error) {
      return { ok: false, problem: `deploy failed: ${(error as Error).message}` };
    }
    const problem = await check(platform, versionId, 100);
    if (!problem) return { ok: true, versionId, steps: [100] };
    return rollBack(platform, problem, versionId, previous);
  }

  const { versionId } = upload;
  const unreachable = platform.checkable();
  if (unreachable) return { ok: false, problem: `${unreachable}; version ${versionId} is uploaded and serves nothing`, versionId };
  platform.log(`Uploaded version ${versionId}; ${previous} serves until the first step.`);
  for (const [index, percent] of steps.slice(0, -1).entries()) {
    const traffic = stepTraffic(versionId, previous as string, percent);
    try {
      await platform.deploy(traffic);
    } catch (error) {
      return rollBack(platform, `deploying ${describeTraffic(traffic)} failed: ${(error as Error).message}`, versionId, previous);
    }
    platform.log(`Step ${index + 1}/${steps.length}: ${describeTraffic(traffic)}`);
    const problem = await check(platform, versionId, percent);
    if (problem) return rollBack(platform, problem, versionId, previous);
    await platform.soak();
  }
  platform.log(`Step ${steps.length}/${steps.length}: the same code deployed whole at 100%, with the Containers' images and settings.`);
  let finalId: string;
  try {
    finalId = await platform.deployAtOnce();
  } catch (error) {
    return rollBack(platform, `deploying at 100% failed: ${(error as Error).message}`, versionId, previous);
  }
  const problem = await check(platform, finalId, 100);
  if (problem) return rollBack(platform, problem, finalId, previous);
  return { ok: true, versionId: finalId, steps };
}

async function check(platform: RolloutPlatform, versionId: string, percent: number): Promise<string | null> {
  const health = await platform.health(versionId);
  if (health) return `at ${percent}%, health: ${health}`;
  const smoke = await platform.smoke(versionId);
  if (smoke) return `at ${percent}%, smoke run: ${smoke}`;
  platform.log(`At ${percent}%: health ok, smoke run passed.`);
  return null;
}

async function rollBack(platform: RolloutPlatform, problem: string, versionId: string, previous: string | undefined): Promise<RolloutResult> {
  if (!previous) return { ok: false, problem, versionId, rollbackProblem: "no previous version to return to" };
  platform.log(`${problem}; rolling back to ${previous} at 100%.`);
  try {
    await platform.deploy([{ version_id: previous, percentage: 100 }]);
  } catch (error) {
    return { ok: false, problem, versionId, rollbackProblem: (error as Error).message };
  }
  return { ok: false, problem, versionId, rolledBackTo: previous };
}

/**
 * The version `npm run rollback` returns to, from the Worker's deployments (any order): during
 * a split, the version that served all traffic before it; otherwise the latest version other
 * than the current one that served all traffic.
 *
 * @example rollbackTarget([{ created_on: "1", versions: [{ version_id: "a", percentage: 100 }] }, { created_on: "2", versions: [{ version_id: "b", percentage: 100 }] }]) // { ok: true, versionId: "a" }
 */
export function rollbackTarget(deployments: Deployment[]): { ok: true; versionId: string } | { ok: false; message: string } {
  const ordered = [...deployments].sort((a, b) => (a.created_on ?? "").localeCompare(b.created_on ?? ""));
  const current = ordered.at(-1);
  if (!current) return { ok: false, message: "the Worker has no deployments" };
  const earlierSole = ordered
    .slice(0, -1)
    .map(soleVersion)
    .filter((v) => v !== undefined)
    .reverse();
  const serving = soleVersion(current);
  if (serving) {
    const target = earlierSole.find((v) => v !== serving);
    return target ? { ok: true, versionId: target } : { ok: false, message: `no earlier version served all traffic before ${serving}` };
  }
  const inSplit = new Set(current.versions.map((v) => v.version_id));
  const target = earlierSole.find((v) => inSplit.has(v));
  return target
    ? { ok: true, versionId: target }
    : { ok: false, message: `none of ${describeTraffic(current.versions)} served all traffic before: name one with --version` };
}
