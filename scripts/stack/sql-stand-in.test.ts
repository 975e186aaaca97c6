import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { neon, neonConfig } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, startDatabase } from "./postgres";
import { removeStateDir } from "./postgres-home";
import { startWsProxy, type WsProxy } from "./ws-proxy";

/** The local Postgres behind the proxy's `/sql`, queried with the driver's own `neon()`. */
let db: Database;
let proxy: WsProxy;
let slow: WsProxy;
const stateDir = mkdtempSync(join(tmpdir(), "guilds-sql-"));

beforeAll(async () => {
  // As root, Postgres runs as its own user, who must reach its data folder.
  chmodSync(stateDir, 0o755);
  db = await startDatabase({ stateDir });
  proxy = await startWsProxy({ allow: [`${db.host}:${db.port}`], countRoundTrips: true });
  slow = await startWsProxy({ allow: [`${db.host}:${db.port}`], countRoundTrips: true, delayMs: 50 });
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await slow?.close();
  await db?.stop();
  removeStateDir(stateDir);
});

const through = (p: WsProxy) => {
  neonConfig.fetchEndpoint = `http://${p.address}/sql`;
  return neon(db.url, { fullResults: true });
};

describe("the local stand-in for Neon's /sql", () => {
  it("STACK: answers a statement with parameters as the driver parses it (types, nulls, command, rowCount)", async () => {
    const sql = through(proxy);
    const result = await sql.query("select $1::int + 1 as n, $2::text as t, null::text as z, '2026-01-02T03:04:05Z'::timestamptz as at", [41, "x"]);
    expect(result.command).toBe("SELECT");
    expect(result.rowCount).toBe(1);
    expect(result.rows[0]).toMatchObject({ n: 42, t: "x", z: null });
    expect(result.fields.map((f) => f.name)).toEqual(["n", "t", "z", "at"]);
  });

  it("STACK: a refused statement is the driver's error with Postgres's SQLSTATE", async () => {
    const sql = through(proxy);
    const error = await sql.query("select 1/0").catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("22012");
  });

  it("STACK: a batch runs in one transaction: a failing statement undoes the ones before it", async () => {
    const sql = through(proxy);
    await sql.query("create table if not exists stand_in_t (n int primary key)");
    const error = await sql
      .transaction([sql.query("insert into stand_in_t values (1)"), sql.query("insert into stand_in_t values (1)")])
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("23505");
    expect((await sql.query("select count(*)::int as c from stand_in_t")).rows[0]).toEqual({ c: 0 });
    const [a, b] = await sql.transaction([sql.query("insert into stand_in_t values (2) returning n"), sql.query("select count(*)::int as c from stand_in_t")], {
      isolationLevel: "Serializable",
      readOnly: false,
    });
    expect(a!.rows).toEqual([{ n: 2 }]);
    expect(b!.rows).toEqual([{ c: 1 }]);
  });

  it("STACK: refuses a connection string naming another server, and any request from a page (an Origin)", async () => {
    const other = await fetch(`http://${proxy.address}/sql`, {
      method: "POST",
      headers: { "neon-connection-string": "postgres://u:p@10.0.0.1:5432/db" },
      body: JSON.stringify({ query: "select 1", params: [] }),
    });
    expect(other.status).toBe(403);
    const page = await fetch(`http://${proxy.address}/sql`, { method: "POST", headers: { origin: "https://evil.example" }, body: "{}" });
    expect(page.status).toBe(403);
    const wrongPath = await fetch(`http://${proxy.address.split("/")[0]}/other/sql`, { method: "POST", body: "{}" });
    expect(wrongPath.status).toBe(426);
  });

  it("STACK: with a distance, a new connection waits its handshakes and every statement a round trip; each counts", async () => {
    const sql = through(slow);
    const before = slow.clientMessages.length;
    const statement = async () => {
      const connections = slow.connections.length;
      const started = Date.now();
      await sql.query("select 1");
      return { ms: Date.now() - started, opened: slow.connections.length - connections };
    };
    const first = await statement();
    const second = await statement();
    // The client may or may not keep its connection between the two; each statement waits one
    // round trip, plus two more (TCP and TLS) for each connection it opened. Lower bounds only:
    // a loaded machine may stretch a wait, never shorten it.
    expect(first.opened).toBe(1);
    expect(first.ms).toBeGreaterThanOrEqual(290);
    expect(second.ms).toBeGreaterThanOrEqual(95 + 200 * second.opened);
    expect(slow.clientMessages.length - before).toBe(2);
  });
});
