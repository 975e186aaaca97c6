import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatabaseUnavailable } from "./client";
import { openHttpDatabase } from "./http";
import { sqlState } from "./outage";
import { agents } from "./schema";

/** A stand-in for Neon's `/sql` whose answer each test sets; it records what it was sent. */
let answer: (req: IncomingMessage, body: any, res: ServerResponse) => void = () => {};
const seen: Array<{ path: string; headers: IncomingMessage["headers"]; body: any }> = [];
let server: Server;
let address: string;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    seen.push({ path: req.url ?? "", headers: req.headers, body });
    answer(req, body, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const at = server.address();
  address = `127.0.0.1:${typeof at === "object" && at ? at.port : 0}/secret`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const config = () => ({ DATABASE_URL: "postgres://u:p@db.example:5432/guilds", NEON_WS_PROXY: address });
const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

describe("the Worker's database over Neon's HTTP query path", () => {
  it("STACK: sends a statement as one POST /sql with the connection string, as text rows in array mode", async () => {
    seen.length = 0;
    answer = (_req, _body, res) =>
      json(res, 200, {
        command: "SELECT",
        rowCount: 1,
        fields: [
          { name: "id", dataTypeID: 2950 },
          { name: "name", dataTypeID: 25 },
        ],
        rows: [["5d0f7f4e-2f3b-4a43-9a55-1c6a8b7c9d10", "Ada"]],
      });
    const { db, close } = openHttpDatabase(config());
    const rows = await db.select({ id: agents.id, name: agents.name }).from(agents).where(eq(agents.name, "Ada"));
    await close();
    expect(rows).toEqual([{ id: "5d0f7f4e-2f3b-4a43-9a55-1c6a8b7c9d10", name: "Ada" }]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toBe("/secret/sql");
    expect(seen[0]!.headers["neon-connection-string"]).toContain("db.example:5432/guilds");
    expect(seen[0]!.headers["neon-array-mode"]).toBe("true");
    expect(seen[0]!.headers["neon-raw-text-output"]).toBe("true");
    expect(seen[0]!.body.params).toEqual(["Ada"]);
  });

  it("STACK: execute answers rows of objects, as over the pool", async () => {
    answer = (_req, _body, res) => json(res, 200, { command: "SELECT", rowCount: 1, fields: [{ name: "n", dataTypeID: 23 }], rows: [["7"]] });
    const { db, close } = openHttpDatabase(config());
    const result = await db.execute(sql`select 7 as n`);
    await close();
    expect(result.rows).toEqual([{ n: 7 }]);
  });

  it("STACK: a statement Postgres refused keeps its SQLSTATE (a unique violation stays a 409 upstream)", async () => {
    answer = (_req, _body, res) => json(res, 400, { message: "duplicate key value violates unique constraint", code: "23505", constraint: "agents_name" });
    const { db, close } = openHttpDatabase(config());
    const error = await db.execute(sql`insert into x values (1)`).catch((e: unknown) => e);
    await close();
    expect(sqlState(error)).toBe("23505");
    expect(causes(error).some((e) => e instanceof DatabaseUnavailable)).toBe(false);
  });

  it("STACK: a statement past its deadline throws DatabaseUnavailable", async () => {
    answer = () => {}; // never answers
    const { db, close } = openHttpDatabase(config(), { deadlineMs: 150 });
    const started = Date.now();
    const error = await db.execute(sql`select 1`).catch((e: unknown) => e);
    await close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(causes(error).some((e) => e instanceof DatabaseUnavailable)).toBe(true);
  });

  it("STACK: an endpoint that cannot reach Postgres (5xx) throws DatabaseUnavailable", async () => {
    answer = (_req, _body, res) => json(res, 503, { message: "cannot reach Postgres" });
    const { db, close } = openHttpDatabase(config());
    const error = await db.execute(sql`select 1`).catch((e: unknown) => e);
    await close();
    expect(causes(error).some((e) => e instanceof DatabaseUnavailable)).toBe(true);
  });

  it("STACK: an endpoint that cannot be reached throws DatabaseUnavailable", async () => {
    const { db, close } = openHttpDatabase({ DATABASE_URL: config().DATABASE_URL, NEON_WS_PROXY: "127.0.0.1:1/secret" });
    const error = await db.execute(sql`select 1`).catch((e: unknown) => e);
    await close();
    expect(causes(error).some((e) => e instanceof DatabaseUnavailable)).toBe(true);
  });
});

/** The error and its causes (drizzle wraps a driver's error in its own). */
function causes(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error; e && out.length < 5; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}
