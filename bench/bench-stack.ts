import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "../scripts/stack/ports";
import { type StackOptions, startStack } from "../scripts/stack/stack";

/**
 * A whole local stack for a benchmark, in a temporary folder, with a Postgres client
 * for direct setup and measurement, and a JSON caller of its API with the operator token.
 *
 * @example
 *   const bench = await benchStack({ countRoundTrips: true });
 *   try { await bench.api("POST", "/api/guilds", { name: "bench" }); } finally { await bench.stop(); }
 */
export async function benchStack(options: Omit<StackOptions, "stateDir" | "port"> = {}) {
  const stateDir = mkdtempSync(join(tmpdir(), "guilds-bench-"));
  // As root, Postgres runs as its own user, who must reach its data folder.
  chmodSync(stateDir, 0o755);
  const stack = await startStack({ ...options, port: await freePort(), stateDir });
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${stack.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${stack.token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json().catch(() => null)) as any;
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
  return {
    stack,
    stateDir,
    db,
    api,
    async stop() {
      await db.end();
      await stack.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** The q-quantile of an ascending list. */
export const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
