/**
 * The rehearsal's stand-in for Cloudflare's record of a Worker: versions and deployments per
 * environment, kept in a JSON file that the wrangler stand-in writes and the HTTP stand-in reads.
 */
import { readFileSync, writeFileSync } from "node:fs";

/** How a version answers the checks: well, with a failing smoke run, or with health degraded. */
export type Behaviour = "good" | "smoke-fails" | "degraded";

export interface StandInVersion {
  id: string;
  behaviour: Behaviour;
  vars: Record<string, string>;
  message?: string;
  created_on: string;
}

/** A deployment as wrangler's `deployments status --json` prints it (scripts/deploy/rollout.ts reads it). */
export interface StandInDeployment {
  id: string;
  created_on: string;
  versions: { version_id: string; percentage: number }[];
}

export interface StandInWorker {
  versions: StandInVersion[];
  deployments: StandInDeployment[];
}

export interface StandInState {
  /** Counts events, so created_on orders them even within one millisecond. */
  clock: number;
  workers: Record<string, StandInWorker>;
}

export function readState(file: string): StandInState {
  return JSON.parse(readFileSync(file, "utf8")) as StandInState;
}

export function writeState(file: string, state: StandInState): void {
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
}

/** The next timestamp of the stand-in's clock. */
export function tick(state: StandInState): string {
  state.clock += 1;
  return new Date(Date.UTC(2026, 0, 1) + state.clock * 1000).toISOString();
}

/** The version a request reaches: the one its override header names, else the largest share. */
export function servingVersion(worker: StandInWorker | undefined, overrideHeader: string | undefined): StandInVersion | undefined {
  if (!worker) return undefined;
  const named = overrideHeader ? /="([^"]+)"/.exec(overrideHeader)?.[1] : undefined;
  const current = worker.deployments.at(-1);
  const id = named ?? [...(current?.versions ?? [])].sort((a, b) => b.percentage - a.percentage)[0]?.version_id;
  return worker.versions.find((v) => v.id === id);
}
