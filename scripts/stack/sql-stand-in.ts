import type { IncomingMessage, ServerResponse } from "node:http";
import pg from "pg";

/** A statement as the Neon driver sends it: text and parameters already serialised to text. */
interface Statement {
  query: string;
  params?: unknown[];
}

/** Every value comes back as Postgres's text, as Neon's `Neon-Raw-Text-Output` asks: the driver parses. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

/** The fields of a Postgres error Neon's endpoint passes on (the driver copies them onto its error). */
const ERROR_FIELDS = [
  "severity",
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

export interface SqlStandIn {
  /** Answers one `POST /sql`; `allowed` says which host:port a connection string may name. */
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  close(): Promise<void>;
}

/**
 * A stand-in for Neon's HTTP query endpoint (`POST https://<host>/sql`) in front of a plain
 * Postgres, speaking what @neondatabase/serverless's `neon()` sends and parses: the
 * connection string in `Neon-Connection-String`; a body `{query, params}` answered by
 * `{command, rowCount, fields: [{name, dataTypeID}], rows: [[text|null]]}`, or a batch
 * `{queries: [...]}` answered by `{results: [...]}` and run in one transaction (its isolation,
 * read-only and deferrable from the `Neon-Batch-*` headers); a refused statement answers 400
 * with the Postgres error's fields. Like Neon's proxy it keeps its connections to Postgres
 * open between requests.
 *
 * @example
 *   const sql = startSqlStandIn({ allow: ["127.0.0.1:5432"] });
 *   server.on("request", (req, res) => sql.handle(req, res));
 */
export function startSqlStandIn(options: { allow: string[] }): SqlStandIn {
  const allowed = new Set(options.allow);
  const pools = new Map<string, pg.Pool>();
  const poolFor = (connectionString: string) => {
    let pool = pools.get(connectionString);
    if (!pool) {
      pool = new pg.Pool({ connectionString, max: 20, idleTimeoutMillis: 30_000 });
      pool.on("error", () => {});
      pools.set(connectionString, pool);
    }
    return pool;
  };
  return {
    async handle(request, response) {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      };
      const connectionString = header(request, "neon-connection-string");
      let target: string;
      try {
        const url = new URL(connectionString ?? "");
        target = `${url.hostname}:${url.port || "5432"}`;
      } catch {
        return answer(400, { message: "Neon-Connection-String is missing or not a URL" });
      }
      if (request.method !== "POST" || !allowed.has(target)) return answer(403, { message: "address not allowed" });
      let body: Statement | { queries: Statement[] };
      try {
        body = JSON.parse(await readBody(request));
      } catch {
        return answer(400, { message: "the body is not JSON" });
      }
      let client: pg.PoolClient;
      try {
        client = await poolFor(connectionString!).connect();
      } catch (error) {
        return answer(503, { message: `cannot reach Postgres: ${(error as Error).message}` });
      }
      let broken = false;
      try {
        if ("queries" in body) {
          const begin = ["begin", isolation(request), readOnly(request), deferrable(request)].filter(Boolean).join(" ");
          await client.query(begin);
          try {
            const results = [];
            for (const statement of body.queries) results.push(await run(client, statement));
            await client.query("commit");
            answer(200, { results });
          } catch (error) {
            await client.query("rollback").catch(() => {
              broken = true;
            });
            throw error;
          }
        } else {
          answer(200, await run(client, body));
        }
      } catch (error) {
        const fields = error as Record<string, unknown>;
        if (typeof fields.code !== "string") broken = true;
        answer(400, Object.fromEntries([["message", (error as Error).message], ...ERROR_FIELDS.map((f) => [f, fields[f]])]));
      } finally {
        client.release(broken);
      }
    },
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.end().catch(() => {})));
      pools.clear();
    },
  };
}

async function run(client: pg.PoolClient, statement: Statement) {
  const result = await client.query({ text: statement.query, values: statement.params ?? [], rowMode: "array", types: RAW_TEXT });
  return {
    command: result.command,
    rowCount: result.rowCount,
    rowAsArray: true,
    fields: result.fields.map((f) => ({
      name: f.name,
      dataTypeID: f.dataTypeID,
      tableID: f.tableID,
      columnID: f.columnID,
      dataTypeSize: f.dataTypeSize,
      dataTypeModifier: f.dataTypeModifier,
      format: "text",
    })),
    rows: result.rows,
  };
}

const ISOLATION: Record<string, string> = {
  ReadUncommitted: "read uncommitted",
  ReadCommitted: "read committed",
  RepeatableRead: "repeatable read",
  Serializable: "serializable",
};

const isolation = (request: IncomingMessage) => {
  const level = ISOLATION[header(request, "neon-batch-isolation-level") ?? ""];
  return level ? `isolation level ${level}` : "";
};
const readOnly = (request: IncomingMessage) => (header(request, "neon-batch-read-only") === "true" ? "read only" : "");
const deferrable = (request: IncomingMessage) => (header(request, "neon-batch-deferrable") === "true" ? "deferrable" : "");

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
