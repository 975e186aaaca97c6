/**
 * The platform key of the workerd tests is a canary: it may reach the platform's own
 * provider (the mock model under /v1) and nothing else. At the end of the run the global
 * setup's teardown checks every row of the test database, every request the mock model
 * received, and every console line the tests' Worker and objects wrote (collected by the
 * root config's onConsoleLog); responses and SSE events are checked as the test helpers
 * read them (test/workerd/seed.ts, test/workerd/sse.ts). Lines a test captures itself with
 * a console spy are that test's to check.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { SECRET_VALUE_CANARY } from "./secret-canary.js";

export const PLATFORM_KEY_CANARY = "sk-test-provider-key-0123456789";

const LEAKS = Symbol.for("guilds.test.platformKeyLeaks");
type Holder = { [LEAKS]?: string[] };

/** Leaks seen so far in this process (the config and the global setup share it through globalThis). */
function leaks(): string[] {
  return ((globalThis as Holder)[LEAKS] ??= []);
}

/** onConsoleLog: notes a console line of a workerd test that carries the canary. */
export function noteConsoleLine(line: string, where: string): void {
  if (line.includes(PLATFORM_KEY_CANARY) || line.includes(SECRET_VALUE_CANARY)) leaks().push(`console line of ${where}: ${line.slice(0, 200)}`);
}

/** Every place the canary was found: console lines, database rows, requests to a provider other than the platform's. */
export async function platformKeyLeaks(databaseUrl: string, mockModelUrl: string): Promise<string[]> {
  const found = [...leaks()];
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    for (const { name } of tables.rows) {
      const ident = `"${name.replace(/"/g, '""')}"`;
      // The stored secret value's canary too: at rest it exists only as ciphertext.
      const hits = await client.query<{ n: string }>(`select count(*) as n from ${ident} t where strpos(t::text, $1) > 0 or strpos(t::text, $2) > 0`, [
        PLATFORM_KEY_CANARY,
        SECRET_VALUE_CANARY,
      ]);
      if (Number(hits.rows[0]!.n) > 0) found.push(`${hits.rows[0]!.n} row(s) of ${name}`);
    }
  } finally {
    await client.end();
  }
  const canaryAuth = createHash("sha256").update(`Bearer ${PLATFORM_KEY_CANARY}`).digest("hex");
  const response = await fetch(`${mockModelUrl}/__requests`);
  const { requests } = (await response.json()) as { requests: Array<{ path: string; authorization_sha256: string | null }> };
  for (const r of requests) {
    if (r.authorization_sha256 === canaryAuth && !r.path.startsWith("/v1/")) found.push(`a model request to ${r.path}`);
  }
  return found;
}
