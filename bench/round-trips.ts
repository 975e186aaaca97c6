/**
 * bench/round-trips: Postgres round trips per operation, counted at the Neon WebSocket proxy.
 *
 * On a local stack (wrangler dev, the objects, Postgres through the Neon driver and the
 * proxy) it runs each operation a few times, with the mock model holding its answer so
 * the window of an operation ends where the model is called, and prints per operation
 * the median of query round trips (messages that carry queries) and of connection
 * messages (startup, password exchange, Terminate: Neon's pipelined connect folds the
 * opening into the first query, and Terminate waits for no answer, so they cost no
 * round trip there) apart.
 *
 *   npx tsx bench/round-trips.ts [--repeat 3]
 */
import { parseArgs } from "node:util";
import { benchStack, quantile } from "./bench-stack";

const { values } = parseArgs({ options: { repeat: { type: "string", default: "3" } } });
const REPEAT = Number(values.repeat);
/** How long the mock holds a reply: the window of an operation closes well before it answers. */
const HOLD_MS = 2_000;
/** Trips that come after the model call but belong to the operation (a schedule's re-arm). */
const SETTLE_MS = 500;

const bench = await benchStack({ countRoundTrips: true });
const { stack, db, api } = bench;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const mock = (path: string, body?: unknown) =>
  fetch(`${stack.mockModelUrl}${path}`, {
    method: body ? "POST" : "GET",
    headers: { "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  }).then((r) => r.json() as Promise<any>);

/** Scripts `model` to hold each of `count` replies, so generations end after the window. */
const holdReplies = (model: string, count: number) =>
  mock("/__script", { model, replies: Array.from({ length: count }, () => ({ content: "ok", delay_ms: HOLD_MS })) });

/** Resolves at the moment the mock has seen `count` requests for `model`. */
async function modelCalled(model: string, count: number, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while ((await mock(`/__requests/count?model=${model}`)).count < count) {
    if (Date.now() > deadline) throw new Error(`model ${model}: no call ${count} within ${timeoutMs} ms`);
    await sleep(5);
  }
  return Date.now();
}

const within = (xs: number[], from: number, to: number) => xs.filter((t) => t >= from && t <= to).length;
/** Query round trips and set-up messages in [from, to]. */
function tripsIn(from: number, to: number) {
  const conn = within(stack.connectionMessages, from, to);
  return { queries: within(stack.roundTrips, from, to) - conn, conn };
}
const quiet = () => sleep(HOLD_MS + 500);

type Trips = ReturnType<typeof tripsIn>;
const results: Array<{ operation: string; budget: string; samples: Trips[] }> = [];
async function measure(operation: string, budget: string, once: (i: number) => Promise<Trips>) {
  const samples: Trips[] = [];
  for (let i = 0; i < REPEAT; i++) samples.push(await once(i));
  results.push({ operation, budget, samples });
}

async function newAgent(guildId: string, name: string, extra: Record<string, unknown> = {}) {
  const model = `rt-${name.replace(/\W+/g, "-")}-${Date.now()}`;
  const agent = await api("POST", `/api/guilds/${guildId}/agents`, { name, model, ...extra });
  return { id: agent.id as string, model };
}

try {
  const guild = await api("POST", "/api/guilds", { name: "round trips", routines_enabled: false });

  // An authenticated read of one resource; the first read warms the Worker.
  const reader = await newAgent(guild.id, "reader");
  await api("GET", `/api/agents/${reader.id}`);
  await measure("authenticated API read (GET /api/agents/:id)", "1 + token check", async () => {
    const from = Date.now();
    await api("GET", `/api/agents/${reader.id}`);
    return tripsIn(from, Date.now());
  });

  // Opening a run with a message, until its generation calls the model.
  const opener = await newAgent(guild.id, "opener");
  await holdReplies(opener.model, REPEAT);
  await measure("opening a run (POST /api/agents/:id/runs, to the model call)", "2 + token check", async (i) => {
    const from = Date.now();
    await api("POST", `/api/agents/${opener.id}/runs`, { message: "hello" });
    const to = await modelCalled(opener.model, i + 1);
    const trips = tripsIn(from, to);
    await quiet();
    return trips;
  });

  // Posting a message on a run the object holds, until the generation calls the model.
  const poster = await newAgent(guild.id, "poster");
  await holdReplies(poster.model, REPEAT + 1);
  const run = await api("POST", `/api/agents/${poster.id}/runs`, { message: "first" });
  await modelCalled(poster.model, 1);
  await quiet();
  await measure("posting a message (POST /api/runs/:id/messages, to the model call)", "2 + token check", async (i) => {
    const from = Date.now();
    await api("POST", `/api/runs/${run.id}/messages`, { content: `message ${i}` });
    const to = await modelCalled(poster.model, i + 2);
    const trips = tripsIn(from, to);
    await quiet();
    return trips;
  });

  // A generation step: between consecutive assistant rows of one generation (one tool call each).
  const stepper = await newAgent(guild.id, "stepper", { max_steps: 20, max_tool_calls: 100 });
  const STEPS = 5 * REPEAT;
  await mock("/__script", {
    model: stepper.model,
    replies: [...Array.from({ length: STEPS }, () => ({ tool_calls: [{ name: "note_list", arguments: {} }] })), { content: "done" }],
  });
  const stepRun = await api("POST", `/api/agents/${stepper.id}/runs`, { message: "go" });
  await modelCalled(stepper.model, STEPS + 1);
  while ((await api("GET", `/api/runs/${stepRun.id}`)).generating) await sleep(50);
  const { rows: assistants } = await db.query("select created_at from messages where run_id = $1 and role = 'assistant' order by seq", [stepRun.id]);
  const times: number[] = assistants.map((r: { created_at: Date }) => r.created_at.getTime());
  results.push({
    operation: "generation step (one tool call, between assistant rows)",
    budget: "2",
    samples: times.slice(1).map((t, i) => tripsIn(times[i]! + 1, t)),
  });

  // A schedule fire: a routine made due a few seconds ahead, armed through the routines switch
  // (the guild has this one agent), until its run's generation calls the model.
  const fireGuild = await api("POST", "/api/guilds", { name: "round trips: schedules", routines_enabled: false });
  const firer = await newAgent(fireGuild.id, "firer");
  await holdReplies(firer.model, REPEAT);
  const schedule = await api("POST", `/api/agents/${firer.id}/schedules`, { cron: "0 0 1 1 *", description: "bench", instruction: "Check in." });
  await measure("schedule fire (alarm to the model call, and its re-arm)", "3", async (i) => {
    await api("PATCH", `/api/guilds/${fireGuild.id}`, { routines_enabled: false });
    const due = Date.now() + 3_000;
    await db.query("update schedules set next_run_at = $2 where id = $1", [schedule.id, new Date(due)]);
    await api("PATCH", `/api/guilds/${fireGuild.id}`, { routines_enabled: true });
    await sleep(Math.max(0, due - Date.now() - 200));
    const from = Date.now();
    const to = await modelCalled(firer.model, i + 1);
    await sleep(SETTLE_MS);
    const trips = tripsIn(from, to + SETTLE_MS);
    await quiet();
    return trips;
  });

  // A group delivery: an operator post to a guild of one listening agent, until its group run
  // calls the model; the post's own trips (the same post to a guild without agents) are taken off.
  const chatGuild = await api("POST", "/api/guilds", { name: "round trips: chat" });
  const emptyGuild = await api("POST", "/api/guilds", { name: "round trips: empty chat" });
  const listener = await newAgent(chatGuild.id, "listener", { group_post: false });
  await holdReplies(listener.model, REPEAT);
  const postAlone: Trips[] = [];
  await measure("group delivery (post to the model call, less the post itself)", "4", async (i) => {
    let from = Date.now();
    await api("POST", `/api/guilds/${emptyGuild.id}/chat`, { content: `alone ${i}` });
    await sleep(SETTLE_MS);
    postAlone.push(tripsIn(from, Date.now()));
    from = Date.now();
    await api("POST", `/api/guilds/${chatGuild.id}/chat`, { content: `round ${i}` });
    const to = await modelCalled(listener.model, i + 1);
    const whole = tripsIn(from, to);
    await quiet();
    await sleep(HOLD_MS);
    return { queries: whole.queries - postAlone.at(-1)!.queries, conn: whole.conn - postAlone.at(-1)!.conn };
  });
  results.push({ operation: "group chat post (POST /api/guilds/:id/chat, no agents)", budget: "-", samples: postAlone });

  const median = (xs: number[]) =>
    quantile(
      [...xs].sort((a, b) => a - b),
      0.5,
    );
  console.log(`round trips per operation (median of ${REPEAT}+ samples; queries = round trips, conn = connection open/close messages)`);
  console.log(`${"operation".padEnd(72)} ${"budget".padEnd(16)} queries    conn  samples (queries)`);
  for (const r of results) {
    console.log(
      `${r.operation.padEnd(72)} ${r.budget.padEnd(16)} ${String(median(r.samples.map((s) => s.queries))).padStart(7)}  ${String(median(r.samples.map((s) => s.conn))).padStart(6)}  ${r.samples.map((s) => s.queries).join(",")}`,
    );
  }
} finally {
  await bench.stop();
}
