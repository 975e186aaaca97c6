/**
 * A stand-in for the wrangler commands the deploy and rollback run (deployments status/list,
 * versions upload/deploy, deploy), recording versions and deployments in the JSON file named
 * by WRANGLER_STAND_IN_STATE. A new version takes its behaviour from STAND_IN_BEHAVIOUR.
 * Run through WRANGLER_BIN=scripts/deploy/stand-in/wrangler.ts (scripts/deploy/rehearse.ts).
 */
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type Behaviour, readState, type StandInState, type StandInVersion, tick, writeState } from "./state";

const stateFile = process.env.WRANGLER_STAND_IN_STATE;
if (!stateFile) die("WRANGLER_STAND_IN_STATE is not set");

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: {
    env: { type: "string" },
    json: { type: "boolean" },
    yes: { type: "boolean" },
    message: { type: "string" },
    var: { type: "string", multiple: true },
  },
  allowPositionals: true,
  strict: true,
});
const env = values.env ?? "";
const state = readState(stateFile as string);
const worker = (state.workers[env] ??= { versions: [], deployments: [] });
const command = positionals.slice(0, 2).join(" ");

function die(message: string): never {
  console.error(`✘ [ERROR] ${message}`);
  process.exit(1);
}

function output(entry: Record<string, unknown>): void {
  const file = process.env.WRANGLER_OUTPUT_FILE_PATH;
  if (file) appendFileSync(file, `${JSON.stringify(entry)}\n`);
}

function newVersion(s: StandInState): StandInVersion {
  const vars = Object.fromEntries((values.var ?? []).map((v) => [v.slice(0, v.indexOf(":")), v.slice(v.indexOf(":") + 1)]));
  const version: StandInVersion = {
    id: randomUUID(),
    behaviour: (process.env.STAND_IN_BEHAVIOUR ?? "good") as Behaviour,
    vars,
    ...(values.message ? { message: values.message } : {}),
    created_on: tick(s),
  };
  worker.versions.push(version);
  return version;
}

if (command === "deployments status") {
  const current = worker.deployments.at(-1);
  if (!current) die(`The Worker ${env} has no deployments.`);
  console.log(JSON.stringify(current, null, 2));
} else if (command === "deployments list") {
  console.log(JSON.stringify(worker.deployments, null, 2));
} else if (command === "versions upload") {
  const version = newVersion(state);
  writeState(stateFile as string, state);
  output({ type: "version-upload", version: 1, version_id: version.id, preview_url: null, wrangler_environment: env });
  console.log(`Uploaded ${env} (stand-in)\nWorker Version ID: ${version.id}`);
} else if (command === "versions deploy") {
  const traffic = positionals.slice(2).map((spec) => {
    const [id, percent] = spec.split("@");
    if (!worker.versions.some((v) => v.id === id)) die(`No version ${id}`);
    return { version_id: id as string, percentage: Number((percent ?? "100").replace("%", "")) };
  });
  if (traffic.length === 0 || traffic.reduce((sum, t) => sum + t.percentage, 0) !== 100)
    die(`Percentages must add up to 100: ${positionals.slice(2).join(" ")}`);
  worker.deployments.push({ id: randomUUID(), created_on: tick(state), versions: traffic });
  writeState(stateFile as string, state);
  console.log(`Deployed ${traffic.map((t) => `version ${t.version_id} at ${t.percentage}%`).join(" and ")} (stand-in)`);
} else if (command === "deploy" || positionals[0] === "deploy") {
  const version = newVersion(state);
  worker.deployments.push({ id: randomUUID(), created_on: tick(state), versions: [{ version_id: version.id, percentage: 100 }] });
  writeState(stateFile as string, state);
  output({ type: "deploy", version: 1, version_id: version.id, targets: [] });
  console.log(`Deployed ${env} (stand-in)\nCurrent Version ID: ${version.id}`);
} else {
  die(`the stand-in does not know \`wrangler ${positionals.join(" ")}\``);
}
