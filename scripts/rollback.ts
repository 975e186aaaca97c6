/**
 * `npm run rollback -- --env production [--version <id>] [--dry-run]`: puts the previous version
 * of the Worker (or the one named) back at 100% with `wrangler versions deploy <id>@100%`, and
 * prints what served before and what serves now. It changes code and config only: migrations,
 * R2 objects, Durable Object storage, secrets and the containers' images stay as they are (docs/deploying.md, "Rolling back").
 */
import { unstable_readConfig } from "wrangler";
import { readCommandLine, WRANGLER_TOML } from "./deploy/command-line";
import { parseRollbackArgs } from "./deploy/options";
import { describeTraffic, rollbackTarget } from "./deploy/rollout";
import { wranglerPlatform } from "./deploy/wrangler-platform";

function fail(message: string, code = 1): never {
  console.error(`rollback: ${message}`);
  process.exit(code);
}

const parsed = readCommandLine(parseRollbackArgs);
if (!parsed.ok) fail(parsed.message, 2);
const { env, version, dryRun } = parsed.options;
const workerName = unstable_readConfig({ config: WRANGLER_TOML, env }).name as string;
const platform = wranglerPlatform({
  env,
  workerName,
  vars: {},
  message: `rollback${version ? ` to ${version}` : ""}`,
  tag: "",
  soakMs: 0,
  timing: { health: { waitMs: 0, pollMs: 0 }, smoke: { waitMs: 0, pollMs: 0 } },
  log: (line) => console.log(line),
});

let deployments: Awaited<ReturnType<typeof platform.deployments>>;
try {
  deployments = await platform.deployments();
} catch (error) {
  fail((error as Error).message);
}
const current = [...deployments].sort((a, b) => (a.created_on ?? "").localeCompare(b.created_on ?? "")).at(-1);
console.log(`${workerName} serves ${current ? describeTraffic(current.versions) : "nothing"}.`);
const target = version ? { ok: true as const, versionId: version } : rollbackTarget(deployments);
if (!target.ok) fail(`${target.message}; nothing changed.`);
if (dryRun) {
  console.log(`Would deploy ${target.versionId}@100% (--dry-run: nothing changed).`);
  process.exit(0);
}
try {
  await platform.deploy([{ version_id: target.versionId, percentage: 100 }]);
} catch (error) {
  fail(`${(error as Error).message}; nothing changed.`);
}
console.log(
  `${workerName} serves ${target.versionId}@100% again. Migrations, R2 objects, Durable Object storage, secrets and the containers' images and settings are as they were.`,
);
