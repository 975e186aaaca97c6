import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { newAgent, objectOf, rows, scriptHeld } from "../../../test/workerd/agents";
import { groupRuns, seedChatRows } from "../../../test/workerd/group-chat";
import { call, seedGuild } from "../../../test/workerd/seed";
import type { AgentObject } from "../agent-object";
import { GROUP_DELIVERY } from "../triggers/group";

/**
 * A deadline of the agent (a schedule wake-up, a group delivery) firing while a burst
 * of direct messages arrives (GEN-002, GEN-003). The alarm runs with the object's clock
 * set to the moment it is due, in the same Promise.all as the messages, so both reach the
 * object together; several rounds, a fresh agent each.
 */

const ROUNDS = 5;
const BURST = 20;
/** Once a year, so no alarm of these tests comes due on the real clock. */
const YEARLY = "0 0 1 1 *";

type Answer = Awaited<ReturnType<typeof call>>;
type Row = Awaited<ReturnType<typeof rows>>[number] & { created_at: string };

/** What one round saw; collected so a failure shows every round. */
interface Round {
  accepted: number;
  opened: number;
  serverErrors: string[];
  badRefusals: string[];
  interrupted: string[];
  overlaps: string[];
  gaps: string[];
}

/** Waits until the agent's lock is free. */
async function idle(agentId: string) {
  for (let i = 0; i < 400; i++) {
    if (!(await objectOf(agentId).generationState()).generating) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`agent ${agentId} still generating after 20 s`);
}

/**
 * Runs the agent's alarm at `at` on its clock, together with a burst of messages to `runId`.
 * The agent's one reply is held until the burst is answered: whoever won still generates.
 */
async function alarmWithBurst(agentId: string, at: number, token: string, runId: string, model: string) {
  const release = await scriptHeld(model, [{ content: "slow reply" }]);
  const stub = objectOf(agentId);
  await runInDurableObject(stub, (object: AgentObject) => {
    object.now = () => at;
  });
  // The alarm may wait for its own generation, so it is awaited after the release.
  const alarm = runDurableObjectAlarm(stub);
  const answers = await Promise.all(
    Array.from({ length: BURST }, (_, i) => call("POST", `/api/runs/${runId}/messages`, { token, body: { content: `message ${i}` } })),
  );
  await release();
  await alarm;
  return answers as Answer[];
}

/** Judges one round: the burst's answers, and the transcripts of the direct run and the run the deadline opened. */
async function judgeRound(token: string, directId: string, opened: Array<{ id: string }>, answers: Answer[]): Promise<Round> {
  const winners = answers.filter((a) => a.status === 202);
  // A refusal names whichever run held the lock: the direct run if a message won, or the deadline's run.
  const busyRuns = [...(winners.length ? [directId] : []), ...opened.map((r) => r.id)];
  const round: Round = { accepted: winners.length, opened: opened.length, serverErrors: [], badRefusals: [], interrupted: [], overlaps: [], gaps: [] };
  for (const a of answers) {
    if (a.status >= 500) round.serverErrors.push(`${a.status} ${JSON.stringify(a.json)}`);
    else if (a.status !== 202 && !(a.status === 409 && a.json?.error?.code === "agent.busy" && busyRuns.includes(a.json.error.details?.run_id))) {
      round.badRefusals.push(`${a.status} ${JSON.stringify(a.json)} (generating: ${busyRuns.join(", ")})`);
    }
  }
  const spans: Array<{ run: string; from: number; to: number }> = [];
  for (const runId of [directId, ...opened.map((r) => r.id)]) {
    const run = (await call("GET", `/api/runs/${runId}`, { token })).json;
    if (run.errors.some((e: { code: string }) => e.code === "generation.interrupted")) round.interrupted.push(runId);
    const transcript = (await rows(token, runId)) as Row[];
    if (transcript.some((r, i) => r.seq !== i)) round.gaps.push(`${runId}: ${transcript.map((r) => r.seq)}`);
    const byGeneration = new Map<number, number[]>();
    for (const r of transcript)
      if (r.generation !== null) byGeneration.set(r.generation, [...(byGeneration.get(r.generation) ?? []), Date.parse(r.created_at)]);
    for (const [generation, times] of byGeneration) spans.push({ run: `${runId}#${generation}`, from: Math.min(...times), to: Math.max(...times) });
  }
  spans.sort((a, b) => a.from - b.from);
  for (let i = 1; i < spans.length; i++) if (spans[i]!.from < spans[i - 1]!.to) round.overlaps.push(`${spans[i - 1]!.run} and ${spans[i]!.run}`);
  return round;
}

/** A new message on the direct run answers 202 and gets its reply. */
async function expectUsable(token: string, agentId: string, directId: string) {
  const sent = await call("POST", `/api/runs/${directId}/messages`, { token, body: { content: "still there?" } });
  expect.soft(sent.status, `a new message on ${directId}: ${JSON.stringify(sent.json)}`).toBe(202);
  if (sent.status !== 202) return;
  await idle(agentId);
  expect.soft((await rows(token, directId)).at(-1)!.payload, `the reply on ${directId}`).toEqual({ role: "assistant", content: "echo: still there?" });
}

/** `fits` says whether a round's count of direct 202s and deadline runs is one generation at a time. */
function expectRounds(rounds: Round[], fits: (round: Round) => boolean) {
  const all = (key: "serverErrors" | "badRefusals" | "interrupted" | "overlaps" | "gaps") => rounds.flatMap((r) => r[key]);
  expect.soft(all("serverErrors"), "5xx answers").toEqual([]);
  expect.soft(all("interrupted"), "runs with a false generation.interrupted").toEqual([]);
  expect.soft(all("overlaps"), "generations that ran at once").toEqual([]);
  expect.soft(all("gaps"), "transcripts with a seq gap").toEqual([]);
  expect.soft(rounds.map(fits), `direct 202s / deadline runs per round: ${rounds.map((r) => `${r.accepted}/${r.opened}`)}`).toEqual(Array(ROUNDS).fill(true));
  expect.soft(all("badRefusals"), "refusals other than 409 agent.busy naming the generating run").toEqual([]);
}

describe("deadlines firing while messages arrive", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it(`GEN-002 / GEN-003 / SCHED-008: a schedule wake-up firing with ${BURST} messages at once: one generation at a time, no false interruption, no 5xx (${ROUNDS} rounds)`, async () => {
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const agent = await newAgent(token, guildId);
      const schedule = (
        await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: { description: "Yearly", instruction: "Look around.", cron: YEARLY } })
      ).json;
      const direct = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
      const answers = await alarmWithBurst(agent.id, Date.parse(schedule.next_run_at) + 250, token, direct.id, agent.model);
      await idle(agent.id);
      const opened = (await call("GET", `/api/schedules/${schedule.id}/runs`, { token })).json.data as Array<{ id: string }>;
      rounds.push(await judgeRound(token, direct.id, opened, answers));
      await expectUsable(token, agent.id, direct.id);
    }
    // Either a message won and the wake-up waits 30 s (SCHED-008), or the wake-up won and every message is refused.
    expectRounds(rounds, (r) => r.accepted + r.opened === 1);
  }, 120_000);

  it(`GEN-002 / GEN-003 / GROUP-009: a group delivery firing with ${BURST} messages at once: one generation at a time, the delivery arrives once, no false interruption (${ROUNDS} rounds)`, async () => {
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const guild = (await call("POST", "/api/guilds", { token, body: { name: `Race ${i}` } })).json;
      const agent = await newAgent(token, guild.id);
      await seedChatRows(guild.id, 3);
      const direct = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
      const due = Date.UTC(2100, 0, 1);
      await runInDurableObject(objectOf(agent.id), (object: AgentObject) =>
        object.rooms.context.deadlines.set(GROUP_DELIVERY, due, { agent_id: agent.id, guild_id: guild.id }),
      );
      const answers = await alarmWithBurst(agent.id, due + 250, token, direct.id, agent.model);
      await idle(agent.id);
      // A delivery that found the agent busy is due again when the generation ends: on
      // the object's clock, which only runDurableObjectAlarm reads here.
      if ((await groupRuns(token, agent.id)).length === 0) {
        await runDurableObjectAlarm(objectOf(agent.id));
        await idle(agent.id);
      }
      const opened = await groupRuns(token, agent.id);
      const round = await judgeRound(token, direct.id, opened, answers);
      // Whoever won, the delivery arrives exactly once and its cursor advances through the seeded rows.
      round.opened = opened.length === 1 ? 1 : 0;
      const delivered = opened.length ? (await call("GET", `/api/runs/${opened[0]!.id}`, { token })).json : null;
      if (opened.length !== 1 || delivered.status !== "completed" || delivered.metadata.group_chat_through_seq !== 3) {
        round.badRefusals.push(`delivery: ${opened.length} group runs, ${delivered?.status}, through ${delivered?.metadata.group_chat_through_seq}`);
      }
      rounds.push(round);
      await expectUsable(token, agent.id, direct.id);
    }
    // The delivery always arrives; at most one message is accepted, before or after it.
    expectRounds(rounds, (r) => r.accepted <= 1 && r.opened === 1);
  }, 120_000);
});
