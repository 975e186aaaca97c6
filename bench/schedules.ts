/**
 * bench/schedules: many agents with many schedules due in the same minute.
 *
 * On a local stack (wrangler dev, one agent object per agent, embedded Postgres), it
 * creates AGENTS agents with SCHEDULES schedules each, all due at the same instant T
 * about a minute ahead, arms every agent's object through the guild's routines switch,
 * and waits. Each fire opens a schedule run whose generation the mock model answers at
 * once; an agent runs one generation at a time, so its schedules fire one after another.
 * It prints fire lateness (run created_at − T) p50/p99/max, missed and doubled counts, and
 * the throughput: fires per second from T until the last first fire of an agent, and over
 * all fires, with workerd's CPU time, the whole machine's (is the machine the limit, or one
 * workerd thread?) and the Postgres round trips per fire (its generation
 * included; the messages that only open or close a connection counted apart).
 *
 *   npx tsx bench/schedules.ts [--agents 1000] [--schedules 10] [--lead 60]
 *   npx tsx bench/schedules.ts --schedules 1      # 1000 agents x 1 schedule: fires per second
 *   BENCH_PROFILE=/tmp/fires npx tsx bench/schedules.ts --agents 200   # /tmp/fires.cpuprofile of the Worker's isolate
 *   BENCH_OUTPUT=/tmp/stack.log npx tsx bench/schedules.ts             # the stack's output (workerd, Postgres) kept
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { benchStack, quantile } from "./bench-stack";
import { busiestThreads, cpuMs, machineCpu, profileWorker, threadCpu, workerdPids } from "./workerd-cpu";

const { values } = parseArgs({
  options: { agents: { type: "string", default: "1000" }, schedules: { type: "string", default: "10" }, lead: { type: "string", default: "60" } },
});
const AGENTS = Number(values.agents);
const PER_AGENT = Number(values.schedules);
const LEAD_S = Number(values.lead);
const YEARLY = "0 0 1 1 *";

const OUTPUT = process.env.BENCH_OUTPUT;
const bench = await benchStack({
  maxConnections: Math.max(300, AGENTS + 100),
  countRoundTrips: true,
  ...(OUTPUT ? { output: (line: string) => appendFileSync(OUTPUT, `${line}\n`) } : {}),
});
const { db, api, stateDir, stack } = bench;

try {
  const guild = await api("POST", "/api/guilds", { name: "bench", routines_enabled: false });
  const {
    rows: [org],
  } = await db.query("select organisation_id from guilds where id = $1", [guild.id]);
  // Agents and schedules go straight into Postgres: the API path is not what is measured.
  const { rows: agents } = await db.query(
    `insert into agents (organisation_id, guild_id, name, model) select $1, $2, 'bench ' || i, 'mock-model' from generate_series(1, $3) i returning id`,
    [org.organisation_id, guild.id, AGENTS],
  );
  const due = new Date(Math.ceil((Date.now() + LEAD_S * 1000) / 60_000) * 60_000);
  await db.query(
    `insert into schedules (agent_id, description, instruction, cron, next_run_at)
     select a.id, 'routine ' || n, 'Check in.', $2, $3 from unnest($1::uuid[]) a(id), generate_series(1, $4) n`,
    [agents.map((a: { id: string }) => a.id), YEARLY, due, PER_AGENT],
  );
  // The routines switch arms every member agent's object at its earliest wake-up.
  const armed = Date.now();
  await api("PATCH", `/api/guilds/${guild.id}`, { routines_enabled: true });
  console.log(`armed ${AGENTS} agent objects in ${((Date.now() - armed) / 1000).toFixed(1)} s; ${AGENTS * PER_AGENT} schedules due at ${due.toISOString()}`);
  if (Date.now() > due.getTime()) throw new Error("arming took longer than the lead time; raise --lead");

  const expected = AGENTS * PER_AGENT;
  const deadline = due.getTime() + 10 * 60_000;
  const pids = workerdPids(stateDir);
  await new Promise((r) => setTimeout(r, Math.max(0, due.getTime() - Date.now() - 1000)));
  const cpuBefore = cpuMs(pids);
  const machineBefore = machineCpu();
  const threadsBefore = threadCpu();
  const tripsBefore = { all: stack.roundTrips.length, connection: stack.connectionMessages.length };
  const profile = process.env.BENCH_PROFILE ? await profileWorker(pids, "guilds-platform") : null;
  let fired = 0;
  // The most client connections Postgres held at once: one per busy object is the design.
  let peakConnections = 0;
  // What the busy connections were waiting on at each sample (a lock, the WAL's flush, none).
  const waits = new Map<string, number>();
  let samples = 0;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 2000));
    const {
      rows: [held],
    } = await db.query("select count(*)::int n from pg_stat_activity where backend_type = 'client backend'");
    peakConnections = Math.max(peakConnections, held.n);
    const { rows: busy } = await db.query(`select coalesce(wait_event_type || ':' || wait_event, 'running') what, count(*)::int n
      from pg_stat_activity where backend_type = 'client backend' and state = 'active' and pid <> pg_backend_pid() group by 1`);
    for (const { what, n } of busy as { what: string; n: number }[]) waits.set(what, (waits.get(what) ?? 0) + n);
    samples += 1;
    const {
      rows: [count],
    } = await db.query("select count(*)::int n from runs where kind = 'schedule'");
    fired = count.n;
    const {
      rows: [gen],
    } = await db.query("select count(*)::int n from runs where kind = 'schedule' and status = 'completed'");
    if (fired >= expected && gen.n >= expected) break;
  }
  const cpuSpent = cpuMs(pids) - cpuBefore;
  const machineSpent = machineCpu().busyMs - machineBefore.busyMs;
  const threadsAfter = threadCpu();
  const firingMs = Date.now() - (due.getTime() - 1000);
  const connectionTrips = stack.connectionMessages.length - tripsBefore.connection;
  const queryTrips = stack.roundTrips.length - tripsBefore.all - connectionTrips;
  if (profile) writeFileSync(`${process.env.BENCH_PROFILE}.cpuprofile`, JSON.stringify(await profile.stop()));
  const { rows } = await db.query(`select s.id, count(r.id)::int runs, min(extract(epoch from r.created_at) * 1000)::float8 first_at
    from schedules s left join runs r on r.schedule_id = s.id group by s.id`);
  const lateness = rows
    .filter((r: { runs: number }) => r.runs > 0)
    .map((r: { first_at: number }) => r.first_at - due.getTime())
    .sort((a: number, b: number) => a - b);
  const missed = rows.filter((r: { runs: number }) => r.runs === 0).length;
  const doubled = rows.filter((r: { runs: number }) => r.runs > 1).length;
  // The first schedule of each agent fires at once; the others wait for the generations before them.
  const { rows: firsts } = await db.query(
    `select min(extract(epoch from r.created_at) * 1000)::float8 at from runs r where r.kind = 'schedule' group by r.agent_id`,
  );
  const firstLateness = firsts.map((r: { at: number }) => r.at - due.getTime()).sort((a: number, b: number) => a - b);
  console.log(`bench/schedules: ${AGENTS} agents x ${PER_AGENT} schedules due at the same instant`);
  console.log(
    `fire lateness, all fires: p50 ${quantile(lateness, 0.5).toFixed(0)} ms, p99 ${quantile(lateness, 0.99).toFixed(0)} ms, max ${lateness.at(-1)?.toFixed(0)} ms`,
  );
  console.log(
    `fire lateness, each agent's first fire: p50 ${quantile(firstLateness, 0.5).toFixed(0)} ms, p99 ${quantile(firstLateness, 0.99).toFixed(0)} ms, max ${firstLateness.at(-1)?.toFixed(0)} ms`,
  );
  console.log(`fired ${fired} of ${expected}; missed ${missed}, doubled ${doubled}`);
  // Each agent's first fire does not wait for a generation of its own: their spread is the fire rate.
  const spanS = Math.max(firstLateness.at(-1) ?? 0, 1) / 1000;
  console.log(`throughput: ${firsts.length} first fires in ${spanS.toFixed(1)} s after T = ${(firsts.length / spanS).toFixed(1)} fires per second`);
  const allS = Math.max(lateness.at(-1) ?? 0, 1) / 1000;
  console.log(`all fires: ${lateness.length} in ${allS.toFixed(1)} s after T = ${(lateness.length / allS).toFixed(1)} fires per second`);
  console.log(`workerd CPU: ${(cpuSpent / 1000).toFixed(1)} s, ${(cpuSpent / Math.max(fired, 1)).toFixed(1)} ms per fire (its generation included)`);
  console.log(
    `machine CPU: ${(machineSpent / Math.max(fired, 1)).toFixed(1)} ms per fire over every process; ${((100 * machineSpent) / (firingMs * machineBefore.cores)).toFixed(0)} % of ${machineBefore.cores} cores busy, workerd ${((100 * cpuSpent) / firingMs).toFixed(0)} % of one`,
  );
  console.log(`busiest threads (% of one core): ${busiestThreads(threadsBefore, threadsAfter, firingMs).join(", ")}`);
  const perFire = (n: number) => (n / Math.max(fired, 1)).toFixed(1);
  console.log(
    `round trips: ${perFire(queryTrips)} queries per fire (its generation and re-arm included), ${perFire(connectionTrips)} connection messages per fire`,
  );
  console.log(`Postgres client connections at once: at most ${peakConnections} (sampled every 2 s)`);
  const waiting = [...waits].sort((a, b) => b[1] - a[1]).map(([what, n]) => `${what} ${(n / Math.max(samples, 1)).toFixed(1)}`);
  console.log(`Postgres statements in flight, mean per sample, by what they wait on: ${waiting.join(", ") || "none"}`);
  // Where a fire's time goes: inside the run (its opening to its answer's row, then to its end)
  // and between one run's end and the same agent's next opening (the re-arm and the wake).
  const { rows: steps } = await db.query(`with r as (
      select r.agent_id, r.created_at, r.completed_at,
        (select max(m.created_at) from messages m where m.run_id = r.id) answered_at,
        lead(r.created_at) over (partition by r.agent_id order by r.created_at) next_at
      from runs r where r.kind = 'schedule')
    select step, percentile_cont(0.5) within group (order by ms)::float8 p50, percentile_cont(0.9) within group (order by ms)::float8 p90
    from (select 'opening to answer' step, extract(epoch from answered_at - created_at) * 1000 ms from r
      union all select 'answer to end', extract(epoch from completed_at - answered_at) * 1000 from r
      union all select 'end to next opening', extract(epoch from next_at - completed_at) * 1000 from r where next_at is not null) s
    where ms is not null group by step order by step desc`);
  for (const step of steps) console.log(`fire step, ${step.step}: p50 ${step.p50.toFixed(0)} ms, p90 ${step.p90.toFixed(0)} ms`);
} finally {
  await bench.stop();
}
