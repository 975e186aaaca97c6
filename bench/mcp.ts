/**
 * bench/mcp: what the platform adds to an MCP tool call, against the server's own time.
 *
 * On a local stack (wrangler dev, the agent object, Postgres), with the local MCP server
 * (scripts/mcp-server) on loopback: one run whose mock model asks for CALLS `bench__echo`
 * calls in one reply, so they run one after another in one generation, on one client. Each
 * tool row's `duration_ms` is the platform's time for the call: the dispatch, the call over
 * Streamable HTTP, the result through the output pipeline (the first call also connects).
 * The server's own time is the same call made straight from Node with the SDK's client, on
 * one session, CALLS times. Overhead per call = platform median − direct median, for the
 * calls after the first.
 *
 *   npx tsx bench/mcp.ts [--calls 30] [--repeat 3]
 */
import { parseArgs } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startMcpServer } from "../scripts/mcp-server/server";
import { benchStack, quantile } from "./bench-stack";

const { values } = parseArgs({ options: { calls: { type: "string", default: "30" }, repeat: { type: "string", default: "3" } } });
const CALLS = Number(values.calls);
const REPEAT = Number(values.repeat);

const server = await startMcpServer();
const bench = await benchStack();
const { stack, db, api } = bench;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => quantile(sorted(xs), 0.5);
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

const mock = (path: string, body?: unknown) =>
  fetch(`${stack.mockModelUrl}${path}`, {
    method: body ? "POST" : "GET",
    headers: { "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  }).then((r) => r.json() as Promise<any>);

/** The connection as discovery leaves it: ready, no auth, echo as its one tool (written directly: the API's discovery is not measured here). */
async function connection(organisationId: string): Promise<void> {
  const {
    rows: [row],
  } = await db.query(
    `insert into mcp_connections (organisation_id, slug, url, transport, org_wide, status) values ($1, 'bench', $2, 'streamable_http', true, 'ready') returning id`,
    [organisationId, `${server.url}/mcp`],
  );
  await db.query(
    `insert into mcp_tools (connection_id, organisation_id, name, remote_name, description, input_schema, position)
     values ($1, $2, 'bench__echo', 'echo', 'Echoes its text back.', $3, 0)`,
    [row.id, organisationId, JSON.stringify({ type: "object", properties: { text: { type: "string" } }, required: ["text"] })],
  );
}

/** One generation of CALLS echo calls; their duration_ms in order. */
async function platformCalls(guildId: string, i: number): Promise<number[]> {
  const model = `bench-mcp-${i}-${Date.now()}`;
  const agent = await api("POST", `/api/guilds/${guildId}/agents`, { name: `bench ${i}`, model, max_tool_calls: 1000 });
  await mock("/__script", {
    model,
    replies: [{ tool_calls: Array.from({ length: CALLS }, (_, n) => ({ name: "bench__echo", arguments: { text: `call ${n}` } })) }, { content: "done" }],
  });
  const run = await api("POST", `/api/agents/${agent.id}/runs`, { message: "go" });
  for (let waited = 0; ; waited += 100) {
    if (!(await api("GET", `/api/runs/${run.id}`)).generating) break;
    if (waited > 120_000) throw new Error("the run did not settle");
    await sleep(100);
  }
  const { rows } = await db.query(`select payload, metadata from messages where run_id = $1 and role = 'tool' order by seq`, [run.id]);
  if (rows.length !== CALLS || rows.some((r: any) => String(r.payload.content).startsWith("ERROR")))
    throw new Error(`unexpected results: ${JSON.stringify(rows.slice(0, 2))}`);
  return rows.map((r: any) => Number(r.metadata.duration_ms));
}

/** The same calls straight from Node on one session: the server's own time. */
async function directCalls(): Promise<number[]> {
  const client = new Client({ name: "bench", version: "1.0.0" }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  const times: number[] = [];
  try {
    for (let n = 0; n < CALLS; n++) {
      const started = performance.now();
      await client.callTool({ name: "echo", arguments: { text: `call ${n}` } });
      times.push(performance.now() - started);
    }
  } finally {
    await client.close();
  }
  return times;
}

try {
  const guild = await api("POST", "/api/guilds", { name: "MCP bench" });
  const {
    rows: [{ organisation_id: organisationId }],
  } = await db.query("select organisation_id from guilds where id = $1", [guild.id]);
  await connection(organisationId);
  const firsts: number[] = [];
  const platform: number[] = [];
  const direct: number[] = [];
  const directFirsts: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    // Alternated, so both see the same machine load.
    const d = await directCalls();
    directFirsts.push(d[0]!);
    direct.push(...d.slice(1));
    const p = await platformCalls(guild.id, i);
    firsts.push(p[0]!);
    platform.push(...p.slice(1));
  }
  const overhead = median(platform) - median(direct);
  console.log(`MCP tool call, ${CALLS} calls per generation, ${REPEAT} generations`);
  console.log(`  platform, first call of a generation (connects): median ${fmt(median(firsts))} (${firsts.map(fmt).join(", ")})`);
  console.log(`  platform, later calls: median ${fmt(median(platform))}, p90 ${fmt(quantile(sorted(platform), 0.9))}`);
  console.log(`  direct (SDK client from Node), first call: median ${fmt(median(directFirsts))}`);
  console.log(`  direct, later calls: median ${fmt(median(direct))}, p90 ${fmt(quantile(sorted(direct), 0.9))}`);
  console.log(`  overhead per call after the first: ${fmt(overhead)} (goal < 30 ms) ${overhead < 30 ? "MET" : "NOT MET"}`);
} finally {
  await bench.stop();
  await server.close();
}
