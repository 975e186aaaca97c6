import { createServer, type Server, type Socket } from "node:net";
import { neonConfig, type WebSocketConstructor } from "@neondatabase/serverless";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startWsProxy, type WsProxy } from "../../scripts/stack/ws-proxy";
import { DatabaseUnavailable, isDatabaseUnavailable, OPENINGS_AT_ONCE, openDatabase } from "./client";
import { isTransient } from "./outage";

/**
 * The driver against a Postgres that accepts connections and never answers (a frozen
 * process: the kernel still accepts), through the stack's own WebSocket proxy.
 */
describe("a database call's deadline", () => {
  let silent: Server;
  let proxy: WsProxy;
  let url: string;
  const sockets = new Set<Socket>();
  let opened = 0;
  /** A Postgres that completes the startup (trust authentication), then answers nothing more. */
  let stalling: Server;
  let stallingUrl: string;
  const stallingSockets = new Set<Socket>();
  let stalled = 0;

  beforeAll(async () => {
    neonConfig.webSocketConstructor ??= WebSocket as unknown as WebSocketConstructor;
    silent = createServer((socket) => {
      opened++;
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
      // Read what arrives (and so see the close), never answer.
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const address = silent.address();
    const target = `127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    stalling = createServer((socket) => {
      stalled++;
      stallingSockets.add(socket);
      socket.on("close", () => stallingSockets.delete(socket));
      socket.on("error", () => {});
      // The startup message first: AuthenticationOk, then ReadyForQuery (idle).
      socket.once("data", () => socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49])));
      socket.resume();
    });
    await new Promise<void>((resolve) => stalling.listen(0, "127.0.0.1", resolve));
    const stallingAddress = stalling.address();
    const stallingTarget = `127.0.0.1:${typeof stallingAddress === "object" && stallingAddress ? stallingAddress.port : 0}`;
    proxy = await startWsProxy({ allow: [target, stallingTarget, "127.0.0.1:1"] });
    url = `postgres://u:p@${target}/db`;
    stallingUrl = `postgres://u:p@${stallingTarget}/db`;
  });
  afterAll(async () => {
    for (const socket of [...sockets, ...stallingSockets]) socket.destroy();
    await proxy.close();
    await new Promise((resolve) => silent.close(resolve));
    await new Promise((resolve) => stalling.close(resolve));
  });

  const open = (options: Parameters<typeof openDatabase>[1], databaseUrl = url) =>
    openDatabase({ DATABASE_URL: databaseUrl, NEON_WS_PROXY: proxy.address }, options);

  it("HARDEN-2: a call with no answer throws DatabaseUnavailable at its deadline and ends its connection", async () => {
    const told: DatabaseUnavailable[] = [];
    const { db, close } = open({ deadlineMs: 400, onUnavailable: (e) => told.push(e) });
    const before = opened;
    const started = Date.now();
    const error = await db.execute(sql`select 1`).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isTransient(error), "a generation's commit rides it out").toBe(true);
    expect(told).toHaveLength(1);
    expect(opened).toBeGreaterThan(before);
    // The connection that did not answer is closed, not left to the pool.
    for (let i = 0; i < 50 && sockets.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sockets.size).toBe(0);
    await close();
  });

  it("HARDEN-2 / ISSUE-34: twice the gate's pools opening at once against a silent Postgres open a few at a time, and every call still fails within its own deadline", async () => {
    const pools = Array.from({ length: 2 * OPENINGS_AT_ONCE }, () => open({ deadlineMs: 600 }));
    const before = opened;
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, sockets.size)), 5);
    const started = Date.now();
    const errors = await Promise.all(pools.map(({ db }) => db.execute(sql`select 1`).catch((e: unknown) => e)));
    clearInterval(watch);
    expect(Date.now() - started, "queued calls wait within their deadline, not behind the openings before them").toBeLessThan(3_000);
    expect(errors.every(isDatabaseUnavailable), String(errors.find((e) => !isDatabaseUnavailable(e)))).toBe(true);
    expect(most, "connections opening at once").toBeLessThanOrEqual(OPENINGS_AT_ONCE);
    expect(opened - before, "only the admitted openings reached the server").toBeLessThanOrEqual(OPENINGS_AT_ONCE);
    await Promise.all(pools.map(({ close }) => close()));
  });

  it("HARDEN-2: a connection that answered before and stalls mid-call is ended at the deadline; the next call opens another", async () => {
    const { db, close } = open({ deadlineMs: 400 }, stallingUrl);
    const first = await db.execute(sql`select 1`).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(first), String(first)).toBe(true);
    const second = await db.execute(sql`select 1`).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(second), String(second)).toBe(true);
    expect(stalled, "one connection per call: the stalled one was not reused").toBe(2);
    for (let i = 0; i < 50 && stallingSockets.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(stallingSockets.size).toBe(0);
    await close();
  });

  it("HARDEN-2: a transaction past its deadline throws DatabaseUnavailable, not the rollback's or the release's error", async () => {
    const { db, close } = open({ deadlineMs: 300 });
    const error = await db.transaction(async (tx) => tx.execute(sql`select 1`)).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error), String(error)).toBe(true);
    await close();
  });

  it("HARDEN-2: a refused connection is DatabaseUnavailable too", async () => {
    const { db, close } = open({ deadlineMs: 2_000 }, "postgres://u:p@127.0.0.1:1/db");
    const error = await db.execute(sql`select 1`).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error), String(error)).toBe(true);
    await close();
  });

  it("HARDEN-2: DatabaseUnavailable is recognised after an RPC keeps only its message; a refused statement is not", () => {
    const remote = new Error(new DatabaseUnavailable("no answer within 15000 ms").message);
    expect(isDatabaseUnavailable(remote)).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error("could not serialize access"), { code: "40001" }))).toBe(false);
    expect(isDatabaseUnavailable(new DatabaseUnavailable("DATABASE_URL is not configured"))).toBe(true);
    // A missing DATABASE_URL is not waited for: no retry makes it appear.
    expect(isTransient(new DatabaseUnavailable("DATABASE_URL is not configured"))).toBe(false);
  });
});
