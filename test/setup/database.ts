import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { migrateDatabase } from "../../scripts/db/migrate";
import { startMockModel } from "../../scripts/mock-model/server";
import { startDatabase } from "../../scripts/stack/postgres";
import { removeStateDir } from "../../scripts/stack/postgres-home";
import { startWsProxy } from "../../scripts/stack/ws-proxy";
import { platformKeyLeaks } from "./canary";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    neonWsProxy: string;
    mockModelUrl: string;
  }
}

/**
 * Global setup of the workerd tests: a real Postgres on a free port (the server at
 * TEST_DATABASE_URL when set, otherwise an embedded one in a temporary folder),
 * migrated, behind the WebSocket proxy the Neon driver uses locally; and the scripted
 * mock model, the default provider of the Worker under test. Its teardown fails the run
 * when the platform key's canary turns up anywhere it must not.
 */
export default async function setup(project: TestProject) {
  const stateDir = mkdtempSync(join(tmpdir(), "guilds-test-pg-"));
  const db = await startDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, stateDir });
  await migrateDatabase(db.url);
  const proxy = await startWsProxy({ allow: [`${db.host}:${db.port}`] });
  project.provide("databaseUrl", db.url);
  project.provide("neonWsProxy", proxy.address);
  const mock = await startMockModel();
  project.provide("mockModelUrl", mock.url);
  return async () => {
    // Acceptance of the provider-key rules: the platform key in no row, no request to
    // another provider and no console line of the whole run (./canary.ts).
    const leaks = await platformKeyLeaks(db.url, mock.url).catch((error: unknown) => [`the check failed: ${String(error)}`]);
    await mock.close();
    await proxy.close();
    await db.stop();
    removeStateDir(stateDir);
    if (leaks.length > 0) {
      // vitest only logs a teardown error; the exit code makes it fail the run.
      process.exitCode = 1;
      throw new Error(`The platform key or the canary secret value leaked:\n- ${leaks.join("\n- ")}`);
    }
  };
}
