/**
 * bench/group-chat: how fast an operator post reaches every agent of a guild.
 *
 * On a local stack (wrangler dev, one guild object, one agent object per agent, embedded
 * Postgres), a guild of AGENTS agents (group_post off, so nobody answers in public) gets
 * ROUNDS operator posts, one at a time after the previous round settled. For each it
 * measures the post's response time, and from the post's commit until each agent's group
 * run was created (delivery latency) and completed. Then a burst of BURST posts in a row
 * shows coalescing: how many group runs covered them, and that every cursor reached the
 * last seq with no range delivered twice.
 *
 *   npx tsx bench/group-chat.ts [--agents 50] [--rounds 5] [--burst 20]
 */
import { parseArgs } from "node:util";
import { benchStack, quantile } from "./bench-stack";

const { values } = parseArgs({
  options: { agents: { type: "string", default: "50" }, rounds: { type: "string", default: "5" }, burst: { type: "string", default: "20" } },
});
const AGENTS = Number(values.agents);
const ROUNDS = Number(values.rounds);
const BURST = Number(values.burst);

const bench = await benchStack({ maxConnections: Math.max(300, AGENTS * 2 + 100) });
const { db, api } = bench;
const ms = (n: number) => `${n.toFixed(0)} ms`;

/** Waits until every agent has a completed group run through `seq`; returns the runs' times. */
async function settledThrough(guildId: string, seq: number, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query(
      `select r.created_at, r.updated_at, r.status from runs r join agents a on a.id = r.agent_id
       where a.guild_id = $1 and r.kind = 'group' and (r.metadata->>'group_chat_through_seq')::int >= $2`,
      [guildId, seq],
    );
    const {
      rows: [cursors],
    } = await db.query(`select count(*)::int as n from group_cursors where guild_id = $1 and delivered_through_seq >= $2`, [guildId, seq]);
    if (cursors.n >= AGENTS) return rows as Array<{ created_at: Date; updated_at: Date }>;
    if (Date.now() > deadline) throw new Error(`through seq ${seq}: ${cursors.n} of ${AGENTS} cursors after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

try {
  const guild = await api("POST", "/api/guilds", { name: "bench" });
  for (let i = 0; i < AGENTS; i++) await api("POST", `/api/guilds/${guild.id}/agents`, { name: `bench ${i}`, group_post: false, model: "mock-model" });
  console.log(`group chat: ${AGENTS} agents in one guild, ${ROUNDS} rounds`);
  const postMs: number[] = [];
  const firstMs: number[] = [];
  const createdMs: number[] = [];
  const completedMs: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const sent = Date.now();
    const posted = await api("POST", `/api/guilds/${guild.id}/chat`, { content: `round ${round}` });
    postMs.push(Date.now() - sent);
    const committed = Date.parse(posted.created_at);
    const runs = await settledThrough(guild.id, posted.seq);
    const created = runs.map((r) => r.created_at.getTime() - committed).sort((a, b) => a - b);
    const completed = runs.map((r) => r.updated_at.getTime() - committed).sort((a, b) => a - b);
    firstMs.push(created[0]!);
    createdMs.push(...created);
    completedMs.push(...completed);
    console.log(
      `  round ${round}: post ${ms(postMs.at(-1)!)}; runs created p50 ${ms(quantile(created, 0.5))}, all ${ms(created.at(-1)!)}; all completed ${ms(completed.at(-1)!)}`,
    );
  }
  createdMs.sort((a, b) => a - b);
  completedMs.sort((a, b) => a - b);
  postMs.sort((a, b) => a - b);
  console.log(
    `post response p50 ${ms(quantile(postMs, 0.5))}; first delivery p50 ${ms(
      quantile(
        firstMs.sort((a, b) => a - b),
        0.5,
      ),
    )}`,
  );
  console.log(
    `delivery latency (commit → run created) p50 ${ms(quantile(createdMs, 0.5))}, p99 ${ms(quantile(createdMs, 0.99))}, max ${ms(createdMs.at(-1)!)}`,
  );
  console.log(`commit → run completed p50 ${ms(quantile(completedMs, 0.5))}, p99 ${ms(quantile(completedMs, 0.99))}`);

  const {
    rows: [before],
  } = await db.query(`select count(*)::int as n from runs r join agents a on a.id = r.agent_id where a.guild_id = $1 and r.kind = 'group'`, [guild.id]);
  let last = 0;
  const burstStart = Date.now();
  for (let i = 1; i <= BURST; i++) last = (await api("POST", `/api/guilds/${guild.id}/chat`, { content: `burst ${i}` })).seq;
  await settledThrough(guild.id, last);
  const {
    rows: [after],
  } = await db.query(`select count(*)::int as n from runs r join agents a on a.id = r.agent_id where a.guild_id = $1 and r.kind = 'group'`, [guild.id]);
  const {
    rows: [overlaps],
  } = await db.query(
    `select count(*)::int as n from runs r1 join runs r2 on r1.agent_id = r2.agent_id and r1.id < r2.id
     join agents a on a.id = r1.agent_id
     where a.guild_id = $1 and r1.kind = 'group' and r2.kind = 'group'
       and (r1.metadata->>'group_chat_after_seq')::int < (r2.metadata->>'group_chat_through_seq')::int
       and (r2.metadata->>'group_chat_after_seq')::int < (r1.metadata->>'group_chat_through_seq')::int`,
    [guild.id],
  );
  const runs = after.n - before.n;
  console.log(
    `burst: ${BURST} posts → ${runs} group runs for ${AGENTS} agents (${(runs / AGENTS).toFixed(1)} per agent, ${BURST} without coalescing); all cursors at seq ${last} after ${ms(Date.now() - burstStart)}; ranges delivered twice: ${overlaps.n}`,
  );
} finally {
  await bench.stop();
}
