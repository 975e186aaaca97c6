/**
 * A rehearsal of the release path against local stand-ins, no Cloudflare account needed:
 * `npm run deploy -- --only rollout` and `npm run rollback` run as they would, with wrangler
 * replaced by scripts/deploy/stand-in/wrangler.ts (WRANGLER_BIN) and the deployment's origin by
 * an HTTP stand-in whose answers depend on the version each request reaches. It shows that a
 * good version reaches 100% in steps, that a failed smoke run or a degraded health report
 * between steps puts the previous version back at 100% (exit 1), and that the rollback command
 * returns to the version before.
 *
 * `npx tsx scripts/deploy/rehearse.ts` prints the story and exits 1 when any of it went wrong;
 * scripts/deploy/rehearse.test.ts runs it in `npm test`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS_DIR } from "../db/migrate";
import { ROOT } from "../stack/wrangler";
import { describeTraffic } from "./rollout";
import { newestMigrationTag } from "./schema-check";
import { startStandInServer } from "./stand-in/server";
import { type Behaviour, readState, type StandInState, writeState } from "./stand-in/state";

const ENV = "production";
const TOKEN = "gld_rehearsal_token";
const AGENT_ID = "00000000-0000-4000-8000-00000000c0de";
/** A Neon host in Frankfurt: the upload must carry DATABASE_LOCATION_HINT=weur. */
const DATABASE_URL = "postgresql://rehearsal:unused@ep-rehearsal-123.eu-central-1.aws.neon.tech/neondb?sslmode=require";

export interface CommandRun {
  args: string[];
  code: number;
  output: string;
  /** The deployments this command added, as "id@P% …", with the versions named by their behaviour. */
  traffic: string[];
}

export interface Rehearsal {
  initial: string;
  good: CommandRun;
  smokeFails: CommandRun;
  degraded: CommandRun;
  rollbackDryRun: CommandRun;
  rollback: CommandRun;
  /** The version serving all traffic at the end, and the vars of the good version. */
  finalServing: string;
  goodVersionVars: Record<string, string>;
}

/** Runs the whole rehearsal in a temporary folder; returns what each command did. */
export async function rehearse(): Promise<Rehearsal> {
  const dir = mkdtempSync(join(tmpdir(), "guilds-rehearsal-"));
  const stateFile = join(dir, "state.json");
  const tag = newestMigrationTag(readdirSync(MIGRATIONS_DIR)) as string;
  // Production serves one good version at 100%, as after an earlier release.
  const initial: StandInState = {
    clock: 1,
    workers: {
      [ENV]: {
        versions: [{ id: "00000000-0000-4000-8000-0000000000a0", behaviour: "good", vars: {}, created_on: "2026-01-01T00:00:00.000Z" }],
        deployments: [
          {
            id: "d0",
            created_on: "2026-01-01T00:00:01.000Z",
            versions: [{ version_id: "00000000-0000-4000-8000-0000000000a0", percentage: 100 }],
          },
        ],
      },
    },
  };
  writeState(stateFile, initial);
  const server = await startStandInServer({ stateFile, env: ENV, tag, token: TOKEN, agentId: AGENT_ID });
  const names = new Map<string, string>([["00000000-0000-4000-8000-0000000000a0", "initial"]]);

  const runScript = async (script: string, args: string[], behaviour: Behaviour | undefined, label?: string): Promise<CommandRun> => {
    const before = readState(stateFile).workers[ENV]?.deployments.length ?? 0;
    const { code, output } = await spawnNode([join(ROOT, script), ...args], {
      WRANGLER_BIN: join(ROOT, "scripts/deploy/stand-in/wrangler.ts"),
      WRANGLER_STAND_IN_STATE: stateFile,
      ...(behaviour ? { STAND_IN_BEHAVIOUR: behaviour } : {}),
      SMOKE_TOKEN: TOKEN,
      SMOKE_AGENT_ID: AGENT_ID,
      DATABASE_URL,
    });
    const worker = readState(stateFile).workers[ENV];
    for (const version of worker?.versions ?? []) if (!names.has(version.id) && label) names.set(version.id, label);
    const traffic = (worker?.deployments.slice(before) ?? []).map((d) =>
      describeTraffic(d.versions.map((v) => ({ ...v, version_id: names.get(v.version_id) ?? v.version_id }))),
    );
    return { args, code, output, traffic };
  };

  const deployArgs = ["--env", ENV, "--only", "rollout", "--url", server.url, "--steps", "10,50,100", "--soak", "0"];
  try {
    const good = await runScript("scripts/deploy.ts", deployArgs, "good", "good");
    const smokeFails = await runScript("scripts/deploy.ts", deployArgs, "smoke-fails", "smoke-fails");
    const degraded = await runScript("scripts/deploy.ts", deployArgs, "degraded", "degraded");
    const rollbackDryRun = await runScript("scripts/rollback.ts", ["--env", ENV, "--dry-run"], undefined);
    const rollback = await runScript("scripts/rollback.ts", ["--env", ENV], undefined);
    const worker = readState(stateFile).workers[ENV];
    const last = worker?.deployments.at(-1);
    const goodId = [...names].find(([, name]) => name === "good")?.[0];
    return {
      initial: "initial@100%",
      good,
      smokeFails,
      degraded,
      rollbackDryRun,
      rollback,
      finalServing: last ? describeTraffic(last.versions.map((v) => ({ ...v, version_id: names.get(v.version_id) ?? v.version_id }))) : "nothing",
      goodVersionVars: worker?.versions.find((v) => v.id === goodId)?.vars ?? {},
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs a TypeScript script with tsx, collecting its output, while this process keeps answering HTTP. */
function spawnNode(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env, DATABASE_LOCATION_HINT: "" },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

/** What the rehearsal should have shown; each problem as a sentence. */
export function rehearsalProblems(r: Rehearsal): string[] {
  const problems: string[] = [];
  const expect = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  expect(r.good.code === 0, `the good release exited ${r.good.code}`);
  expect(r.good.traffic.join(" | ") === "good@10% initial@90% | good@50% initial@50% | good@100%", `the good release went ${r.good.traffic.join(" | ")}`);
  expect(r.goodVersionVars.DATABASE_LOCATION_HINT === "weur", `the upload carried ${JSON.stringify(r.goodVersionVars)}`);
  expect(r.smokeFails.code === 1, `the release with a failing smoke run exited ${r.smokeFails.code}`);
  expect(r.smokeFails.traffic.join(" | ") === "smoke-fails@10% good@90% | good@100%", `the failing smoke release went ${r.smokeFails.traffic.join(" | ")}`);
  expect(r.degraded.code === 1, `the release with degraded health exited ${r.degraded.code}`);
  expect(r.degraded.traffic.join(" | ") === "degraded@10% good@90% | good@100%", `the degraded release went ${r.degraded.traffic.join(" | ")}`);
  expect(r.rollbackDryRun.code === 0 && r.rollbackDryRun.traffic.length === 0, "the rollback dry run changed something or failed");
  expect(r.rollback.code === 0 && r.rollback.traffic.join(" | ") === "initial@100%", `the rollback went ${r.rollback.traffic.join(" | ")}`);
  expect(r.finalServing === "initial@100%", `at the end ${r.finalServing} serves`);
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await rehearse();
  for (const [label, run] of [
    ["good release", r.good],
    ["smoke run fails at 10%", r.smokeFails],
    ["health degraded at 10%", r.degraded],
    ["rollback --dry-run", r.rollbackDryRun],
    ["rollback", r.rollback],
  ] as const) {
    console.log(`\n== ${label}: exit ${run.code}; deployments: ${run.traffic.join(" | ") || "(none)"}`);
    console.log(run.output.trim().replace(/^/gm, "   "));
  }
  const problems = rehearsalProblems(r);
  console.log(problems.length ? `\nRehearsal FAILED:\n- ${problems.join("\n- ")}` : `\nRehearsal passed: ${r.finalServing} serves at the end.`);
  process.exit(problems.length ? 1 : 0);
}
