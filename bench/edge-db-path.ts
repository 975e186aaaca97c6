/**
 * bench/edge-db-path: the Worker's own queries over Neon's HTTP query path against a
 * WebSocket pool per request (decision 0023), near the database and far from it.
 *
 * For each path (DATABASE_QUERY_PATH `pool` and `http`) and each simulated distance (one
 * way, ms; the local proxy and its `/sql` stand-in wait that long per message and two round
 * trips per new connection, for TCP and TLS) it starts a local stack and prints, per
 * operation, the median over --repeat samples of: connections opened to the database,
 * query round trips, connection messages (startup, password, Terminate), and wall time.
 * Operations: an authenticated read (`GET /api/agents/:id`, token verified in this
 * isolate) and opening a run (`POST /api/agents/:id/runs` with a message, to the model
 * call), on an agent the isolate has seen and on one it has not (the Worker then checks
 * the agent's organisation itself). Then it opens --streams event streams (`GET /api/runs/:id/events`) over 5 runs,
 * --batch at a time, and prints how fast they opened (response headers received).
 *
 *   npx tsx bench/edge-db-path.ts [--repeat 5] [--delays 0,40] [--paths pool,http] [--streams 1000] [--batch 200]
 */
import { parseArgs } from "node:util";
import { benchStack, quantile } from "./bench-stack";

const { values } = parseArgs({
  options: {
    repeat: { type: "string", default: "5" },
    delays: { type: "string", default: "0,40" },
    paths: { type: "string", default: "pool,http" },
    streams: { type: "string", default: "1000" },
    batch: { type: "string", default: "200" },
  },
});
const REPEAT = Number(values.repeat);
const DELAYS = values.delays.split(",").map(Number);
const PATHS = values.paths.split(",");
const STREAMS = Number(values.streams);
const BATCH = Number(values.batch);
const RUNS = 5;
const HOLD_MS = 3_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

interface Sample {
  connections: number;
  queries: number;
  conn: number;
  ms: number;
}
const rows: string[] = [];

for (const delay of DELAYS) {
  for (const path of PATHS) {
    const bench = await benchStack({
      countRoundTrips: true,
      databaseDelayMs: delay,
      maxConnections: 1000,
      vars: { DATABASE_QUERY_PATH: path, MAX_RUN_SUBSCRIBERS: String(STREAMS) },
    });
    const { stack, api } = bench;
    const mock = (p: string, body?: unknown) =>
      fetch(`${stack.mockModelUrl}${p}`, {
        method: body ? "POST" : "GET",
        headers: { "content-type": "application/json" },
        body: body ? JSON.stringify(body) : undefined,
      }).then((r) => r.json() as Promise<any>);
    async function modelCalled(model: string, count: number): Promise<number> {
      const deadline = Date.now() + 30_000;
      while ((await mock(`/__requests/count?model=${model}`)).count < count) {
        if (Date.now() > deadline) throw new Error(`model ${model}: no call ${count}`);
        await sleep(2);
      }
      return Date.now();
    }
    const within = (xs: number[], from: number, to: number) => xs.filter((t) => t >= from && t <= to).length;
    const sample = (from: number, to: number): Sample => {
      const conn = within(stack.connectionMessages, from, to);
      return { connections: within(stack.databaseConnections, from, to), queries: within(stack.roundTrips, from, to) - conn, conn, ms: to - from };
    };
    const report = (operation: string, samples: Sample[]) => {
      const m = (k: keyof Sample) => median(samples.map((s) => s[k]));
      rows.push(
        `| ${operation} | ${path} | ${delay} | ${m("connections")} | ${m("queries")} | ${m("conn")} | ${m("ms")} | ${samples.map((s) => s.ms).join(", ")} |`,
      );
      console.log(rows.at(-1));
    };
    try {
      const guild = await api("POST", "/api/guilds", { name: "edge path", routines_enabled: false });
      const newAgent = async (name: string) => {
        const model = `edge-${name}-${Date.now()}`;
        const agent = await api("POST", `/api/guilds/${guild.id}/agents`, { name, model });
        return { id: agent.id as string, model };
      };

      const reader = await newAgent("reader");
      await api("GET", `/api/agents/${reader.id}`);
      const reads: Sample[] = [];
      for (let i = 0; i < REPEAT; i++) {
        await sleep(300);
        const from = Date.now();
        await api("GET", `/api/agents/${reader.id}`);
        reads.push(sample(from, Date.now()));
      }
      report("authenticated read", reads);

      const opener = await newAgent("opener");
      await mock("/__script", { model: opener.model, replies: Array.from({ length: REPEAT + 1 }, () => ({ content: "ok", delay_ms: HOLD_MS })) });
      // The first opening of an isolate also checks the agent's organisation: warm it.
      await api("POST", `/api/agents/${opener.id}/runs`, { message: "warm" });
      await modelCalled(opener.model, 1);
      await sleep(HOLD_MS + 500);
      const openings: Sample[] = [];
      for (let i = 0; i < REPEAT; i++) {
        const from = Date.now();
        await api("POST", `/api/agents/${opener.id}/runs`, { message: "hello" });
        openings.push(sample(from, await modelCalled(opener.model, i + 2)));
        await sleep(HOLD_MS + 500);
      }
      report("opening a run (to the model call)", openings);

      // The first opening on an agent in an isolate also has the Worker check the agent's
      // organisation (one query of its own): a new agent each time.
      const firsts: Sample[] = [];
      for (let i = 0; i < REPEAT; i++) {
        const fresh = await newAgent(`first-${i}`);
        await mock("/__script", { model: fresh.model, replies: [{ content: "ok", delay_ms: HOLD_MS }] });
        const from = Date.now();
        await api("POST", `/api/agents/${fresh.id}/runs`, { message: "hello" });
        firsts.push(sample(from, await modelCalled(fresh.model, 1)));
        await sleep(HOLD_MS + 500);
      }
      report("opening a run, the agent new to the isolate (to the model call)", firsts);

      const runs: string[] = [];
      for (let i = 0; i < RUNS; i++) {
        const a = await newAgent(`streamed-${i}`);
        runs.push((await api("POST", `/api/agents/${a.id}/runs`, { message: "hi" })).id);
      }
      await sleep(2_000);
      // The same requests' database path without a stream (the run read the stream's route does
      // first), to tell the Worker's and database's share of a stream's opening from the object's.
      {
        const started = Date.now();
        const before = stack.databaseConnections.length;
        let ok = 0;
        const why = new Map<string, number>();
        for (let at = 0; at < STREAMS; at += BATCH) {
          await Promise.all(
            Array.from({ length: Math.min(BATCH, STREAMS - at) }, async (_, k) => {
              const res = await fetch(`${stack.apiUrl}/api/runs/${runs[(at + k) % RUNS]}`, { headers: { authorization: `Bearer ${stack.token}` } }).catch(
                () => null,
              );
              const body = await res?.text();
              if (res?.status === 200) ok++;
              else {
                const reason = res ? `${res.status} ${/"code":"([^"]+)"/.exec(body ?? "")?.[1] ?? ""}`.trim() : "no answer";
                why.set(reason, (why.get(reason) ?? 0) + 1);
              }
            }),
          );
        }
        const elapsed = Date.now() - started;
        rows.push(
          `| ${STREAMS} run reads (GET /api/runs/:id) over ${RUNS} runs, ${BATCH} at a time | ${path} | ${delay} | ${stack.databaseConnections.length - before} | - | - | ${elapsed} | ${Math.round((ok / elapsed) * 1000)}/s; failed ${[...why].map(([w, n]) => `${n} (${w})`).join(", ") || 0} |`,
        );
        console.log(rows.at(-1));
      }
      const controller = new AbortController();
      const opened: number[] = [];
      const failed = new Map<string, number>();
      const started = Date.now();
      const connectionsBefore = stack.databaseConnections.length;
      for (let at = 0; at < STREAMS; at += BATCH) {
        await Promise.all(
          Array.from({ length: Math.min(BATCH, STREAMS - at) }, async (_, k) => {
            const t = Date.now();
            const res = await fetch(`${stack.apiUrl}/api/runs/${runs[(at + k) % RUNS]}/events`, {
              headers: { authorization: `Bearer ${stack.token}`, accept: "text/event-stream" },
              signal: controller.signal,
            }).catch((error: Error) => error);
            if (!(res instanceof Error) && res.status === 200) opened.push(Date.now() - t);
            else {
              const why = res instanceof Error ? res.message : String(res.status);
              failed.set(why, (failed.get(why) ?? 0) + 1);
            }
          }),
        );
      }
      const elapsed = Date.now() - started;
      controller.abort();
      const sorted = [...opened].sort((a, b) => a - b);
      rows.push(
        `| ${STREAMS} event streams over ${RUNS} runs, ${BATCH} at a time | ${path} | ${delay} | ${stack.databaseConnections.length - connectionsBefore} | - | - | ${elapsed} | ${Math.round((opened.length / elapsed) * 1000)}/s; each p50 ${quantile(sorted, 0.5)} ms, p99 ${quantile(sorted, 0.99)} ms; failed ${[...failed].map(([why, n]) => `${n} (${why})`).join(", ") || 0} |`,
      );
      console.log(rows.at(-1));
    } finally {
      await bench.stop();
    }
  }
}

console.log(`\nmedians of ${REPEAT}; delay = one way, ms; connections = opened to the database (or its /sql) in the window`);
console.log("| operation | path | delay | connections | queries | conn messages | wall ms | samples (ms) |");
console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
