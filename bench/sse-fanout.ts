/**
 * bench/sse-fanout: many event-stream subscribers at once, and what they cost the objects.
 *
 * On a local stack (wrangler dev, one agent object per agent, embedded Postgres), phase 1
 * gives AGENTS agents one run each with SUBS subscribers on its event stream, then sends
 * every run a message at the same time; each generation streams deltas and commits seven
 * rows (two tool calls, then a streamed reply). Phase 2 does the same for one run with BIG
 * subscribers. Subscribers behave like EventSource: on a dropped stream they reconnect
 * with Last-Event-ID. For each phase it reports rows lost (a subscriber never got a
 * committed row), gaps and duplicates (both must be 0), the latency from a row's insert
 * (its created_at) to each subscriber, and the peak resident memory and descriptor count
 * of the workerd process running the Worker and the objects (and of wrangler's proxy).
 *
 *   npx tsx bench/sse-fanout.ts [--agents 200] [--subs 5] [--big 1000] [--timeout 600]
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { parseArgs } from "node:util";
import { benchStack, quantile } from "./bench-stack";

const { values } = parseArgs({
  options: {
    agents: { type: "string", default: "200" },
    subs: { type: "string", default: "5" },
    big: { type: "string", default: "1000" },
    timeout: { type: "string", default: "600" },
  },
});
const AGENTS = Number(values.agents);
const SUBS = Number(values.subs);
const BIG = Number(values.big);
const DEADLINE = Date.now() + Number(values.timeout) * 1000;
const ROWS_PER_RUN = 7;

const serverErrors: string[] = [];
const bench = await benchStack({
  maxConnections: 1000,
  output: (line) => {
    if (/error|exception|too many/i.test(line)) serverErrors.push(line.slice(0, 2000));
  },
  vars: { MAX_RUN_SUBSCRIBERS: String(Math.max(BIG, SUBS)) },
});
const { stack, db, api } = bench;
const port = new URL(stack.apiUrl).port;

/** The workerd processes this benchmark started, sampled for RSS and open descriptors. */
class ProcessSampler {
  peak = new Map<number, { label: string; rssMb: number; fds: number; sockets: number }>();
  private timer = setInterval(() => this.sample(), 200);

  sample() {
    for (const pid of descendants(process.pid)) {
      const cmd = read(`/proc/${pid}/cmdline`).replaceAll("\0", " ");
      if (!cmd.includes("workerd")) continue;
      const label = cmd.includes(`entry=127.0.0.1:${port}`) ? "wrangler's proxy" : "Worker and objects";
      const rssMb = Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${pid}/status`))?.[1] ?? 0) / 1024;
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      let sockets = 0;
      for (const fd of fds) {
        try {
          if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) sockets++;
        } catch {
          // closed meanwhile
        }
      }
      const seen = this.peak.get(pid) ?? { label, rssMb: 0, fds: 0, sockets: 0 };
      this.peak.set(pid, { label, rssMb: Math.max(seen.rssMb, rssMb), fds: Math.max(seen.fds, fds.length), sockets: Math.max(seen.sockets, sockets) });
    }
  }

  reset() {
    this.peak.clear();
    this.sample();
  }

  report() {
    return [...this.peak.values()].map((p) => `${p.label}: peak RSS ${p.rssMb.toFixed(0)} MB, peak fds ${p.fds} (sockets ${p.sockets})`).join("; ");
  }

  stop() {
    clearInterval(this.timer);
  }
}

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length)
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  return out;
}

/** One EventSource-like subscriber: message seqs in arrival order and insert-to-arrival latencies. */
class Subscriber {
  seqs: number[] = [];
  latencies: number[] = [];
  reconnects = 0;
  refused = 0;
  /** Why streams ended before the subscriber closed them. */
  reasons: string[] = [];
  ready: Promise<void>;
  private markReady!: () => void;
  private controller = new AbortController();
  private lastId: string | undefined;

  constructor(private readonly runId: string) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    void this.loop();
  }

  close() {
    this.controller.abort();
  }

  private async loop() {
    while (!this.controller.signal.aborted) {
      try {
        const headers: Record<string, string> = { authorization: `Bearer ${stack.token}` };
        if (this.lastId !== undefined) headers["last-event-id"] = this.lastId;
        const res = await fetch(`${stack.apiUrl}/api/runs/${this.runId}/events`, { headers, signal: this.controller.signal });
        if (res.status === 429) {
          this.refused++;
          await res.body?.cancel();
          await new Promise((r) => setTimeout(r, 1000));
          continue;
        }
        await this.consume(res.body!);
        if (!this.controller.signal.aborted) this.reasons.push(`ended (status ${res.status})`);
      } catch (error) {
        // the stream broke: reconnect as EventSource does
        if (!this.controller.signal.aborted) this.reasons.push(String((error as Error).cause ?? (error as Error).message).slice(0, 80));
      }
      if (this.controller.signal.aborted) return;
      this.reconnects++;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private async consume(body: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = "message";
        let id: string | undefined;
        let data = "";
        for (const line of frame.split("\n")) {
          if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("id: ")) id = line.slice(4);
          else if (line.startsWith("data: ")) data += line.slice(6);
        }
        if (event === "status") this.markReady();
        if (event !== "message" || id === undefined) continue;
        this.lastId = id;
        const row = JSON.parse(data) as { seq: number; created_at: string };
        this.seqs.push(row.seq);
        this.latencies.push(Date.now() - Date.parse(row.created_at));
      }
    }
  }
}

async function inBatches<T>(count: number, size: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += size) out.push(...(await Promise.all(Array.from({ length: Math.min(size, count - i) }, (_, k) => make(i + k)))));
  return out;
}

const mockScript = (model: string) =>
  fetch(`${stack.mockModelUrl}/__script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model,
      replies: [
        { tool_calls: [{ name: "note_write", arguments: { title: "a", body: "first" } }] },
        { tool_calls: [{ name: "note_write", arguments: { title: "b", body: "second" } }] },
        { content: "a streamed answer of some words ".repeat(10), stream_chunk_ms: 20 },
      ],
    }),
  });

/** Runs of `agents` agents with `subs` subscribers each, one message to every run at once. */
async function phase(name: string, guildId: string, agents: number, subs: number, sampler: ProcessSampler) {
  const runs = await inBatches(agents, 20, async (i) => {
    const model = `fanout-${name}-${i}`;
    const agent = await api("POST", `/api/guilds/${guildId}/agents`, { name: `${name} ${i}`, model });
    await mockScript(model);
    return (await api("POST", `/api/agents/${agent.id}/runs`, {})).id as string;
  });
  sampler.reset();
  const started = Date.now();
  const subscribers = runs.map((runId) => ({ runId, subs: [] as Subscriber[] }));
  // Streams open 200 at a time, as they did when each request opened its own database
  // connection in the Worker (a burst of 1,000 passed the local Postgres's max_connections;
  // over the HTTP query path it no longer does, decision 0023): figures stay comparable.
  const all = subscribers.flatMap((s) => Array.from({ length: subs }, () => s));
  for (let k = 0; k < all.length; k += 200) {
    const batch = all.slice(k, k + 200).map((s) => {
      const subscriber = new Subscriber(s.runId);
      s.subs.push(subscriber);
      return subscriber.ready;
    });
    await Promise.all(batch);
  }
  const subscribedMs = Date.now() - started;
  const sent = Date.now();
  const failed = await Promise.all(
    runs.map((runId) =>
      api("POST", `/api/runs/${runId}/messages`, { content: "go" }).then(
        () => null,
        (e: Error) => e.message,
      ),
    ),
  );
  const accepted = new Set(runs.filter((_, i) => failed[i] === null));
  const failures = failed.filter(Boolean);
  if (failures.length)
    console.log(
      `  ${failures.length} messages failed, e.g. ${failures[0]}; server said: ${serverErrors
        .slice(-2)
        .map((l) => l.slice(-300))
        .join(" | ")}`,
    );
  // Done when every run has its rows and every subscriber has them all (or the time is up).
  let complete = false;
  while (!complete && Date.now() < DEADLINE) {
    await new Promise((r) => setTimeout(r, 250));
    complete = subscribers.every((s) => !accepted.has(s.runId) || s.subs.every((x) => x.seqs.length >= ROWS_PER_RUN));
  }
  const settledMs = Date.now() - sent;
  await new Promise((r) => setTimeout(r, 500));
  for (const s of subscribers) for (const x of s.subs) x.close();

  const { rows } = await db.query(`select run_id, seq from messages where run_id = any($1) order by run_id, seq`, [runs]);
  const committed = new Map<string, number[]>();
  for (const r of rows as Array<{ run_id: string; seq: number }>) committed.set(r.run_id, [...(committed.get(r.run_id) ?? []), r.seq]);
  let lost = 0;
  let gaps = 0;
  let duplicates = 0;
  const latencies: number[] = [];
  let reconnects = 0;
  let refused = 0;
  const reasons = new Map<string, number>();
  for (const s of subscribers) {
    const expected = committed.get(s.runId) ?? [];
    for (const x of s.subs) {
      const got = new Set(x.seqs);
      duplicates += x.seqs.length - got.size;
      lost += expected.filter((seq) => !got.has(seq)).length;
      for (let i = 1; i < x.seqs.length; i++) if (x.seqs[i] !== x.seqs[i - 1]! + 1) gaps++;
      // The first rows are replayed history, not live; latency counts rows committed after the message.
      latencies.push(...x.latencies.filter((_, i) => x.seqs[i]! >= 1));
      reconnects += x.reconnects;
      for (const r of x.reasons) reasons.set(r, (reasons.get(r) ?? 0) + 1);
      refused += x.refused;
    }
  }
  latencies.sort((a, b) => a - b);
  const totalRows = rows.length;
  console.log(
    `${name}: ${agents} run(s) x ${subs} subscribers = ${agents * subs} streams; ${accepted.size} runs generated; ${totalRows} rows committed (${ROWS_PER_RUN} per generated run)`,
  );
  console.log(`  subscribed in ${subscribedMs} ms; all rows delivered ${complete ? "" : "NOT "}within ${settledMs} ms of the messages`);
  console.log(
    `  lost ${lost}, gaps ${gaps}, duplicates ${duplicates}, reconnects ${reconnects}${reasons.size ? ` (${[...reasons].map(([r, n]) => `${n}x ${r}`).join(", ")})` : ""}, refused (429) ${refused}`,
  );
  console.log(
    `  insert-to-subscriber latency p50 ${quantile(latencies, 0.5)} ms, p99 ${quantile(latencies, 0.99)} ms, max ${latencies.at(-1)} ms (${latencies.length} deliveries)`,
  );
  console.log(`  ${sampler.report()}`);
  // wrangler's own update check fails offline; that line is noise here.
  const errors = serverErrors.splice(0).filter((l) => !l.includes("ENOTFOUND workers.cloudflare.com"));
  const kinds = new Map<string, number>();
  for (const line of errors) {
    const message = /"message":"([^"]{0,160})/.exec(line)?.[1] ?? line.slice(-160);
    kinds.set(message, (kinds.get(message) ?? 0) + 1);
  }
  for (const [message, n] of kinds) console.log(`  server error x${n}: ${message}`);
}

const sampler = new ProcessSampler();
try {
  const guild = await api("POST", "/api/guilds", { name: "fanout" });
  sampler.reset();
  console.log(`idle: ${sampler.report()}`);
  if (AGENTS > 0) await phase("many", guild.id, AGENTS, SUBS, sampler);
  if (BIG > 0 && Date.now() < DEADLINE) await phase("one", guild.id, 1, BIG, sampler);
} finally {
  sampler.stop();
  await bench.stop();
}
