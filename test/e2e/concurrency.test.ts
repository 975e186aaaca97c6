import { describe, expect, it } from "vitest";
import { agentIdle, errorCodes, expectNoGap, generationSpans, guildWithAgent, overlaps, readRun, script, transcript, type WireRow } from "./agents";
import { api } from "./http";

/**
 * The generation lock under requests that truly arrive together (GEN-002, GEN-003):
 * every burst is one Promise.all of fetches with no await in between, against the whole
 * local stack. The winning generation's reply is slow (delay_ms), so the rest of the
 * burst meets it still running.
 */

const ROUNDS = 5;
const BURST = 20;
/** Long enough that every request of a burst reaches the agent while the winner generates. */
const SLOW_REPLY = { content: "slow reply", delay_ms: 3_000 };

type Answer = Awaited<ReturnType<typeof api>>;

/** What went wrong in a burst, collected so one failure shows every round's figures. */
interface Findings {
  accepted: number[];
  serverErrors: string[];
  badRefusals: string[];
}

const findings = (): Findings => ({ accepted: [], serverErrors: [], badRefusals: [] });

/** 5xx answers and refusals that are not 409 agent.busy naming one of the runs that generated. */
function judge(answers: Answer[], winners: number[], busyRunIds: string[], into: Findings) {
  answers.forEach((a, i) => {
    if (a.status >= 500) into.serverErrors.push(`${a.status} ${a.text}`);
    else if (!winners.includes(i) && !(a.status === 409 && a.json?.error?.code === "agent.busy" && busyRunIds.includes(a.json.error.details?.run_id))) {
      into.badRefusals.push(`${a.status} ${a.text} (generating: ${busyRunIds.join(", ")})`);
    }
  });
}

/** A new message on each run in turn answers 202 and gets its reply: the run is usable. */
async function expectUsable(agentId: string, runIds: string[], label: string, accepted: Map<string, string[]>) {
  for (const runId of runIds) {
    const content = `${label} on ${runId}`;
    const sent = await api("POST", `/api/runs/${runId}/messages`, { body: { content } });
    expect.soft(sent.status, `${label}: ${sent.text}`).toBe(202);
    if (sent.status !== 202) continue;
    accepted.get(runId)!.push(content);
    await agentIdle(agentId);
    const rows = await transcript(runId);
    expect.soft(rows.at(-1)?.payload, `${label}: the reply of run ${runId}`).toEqual({ role: "assistant", content: `echo: ${content}` });
  }
}

/** Whole transcripts holding exactly the accepted user rows, no false interruption. */
async function expectSound(runIds: string[], accepted: Map<string, string[]>) {
  const byRun: Record<string, WireRow[]> = {};
  for (const runId of runIds) {
    const run = await readRun(runId);
    expect.soft(errorCodes(run), `errors of run ${runId}`).not.toContain("generation.interrupted");
    const rows = await transcript(runId);
    expectNoGap(rows, runId);
    // As sets: when a burst wrongly accepts several, their order is the object's, not the burst's.
    expect
      .soft(
        rows
          .filter((r) => r.role === "user")
          .map((r) => r.payload.content)
          .sort(),
        `user rows of run ${runId}`,
      )
      .toEqual([...accepted.get(runId)!].sort());
    byRun[runId] = rows;
  }
  return byRun;
}

/** Sends one burst of messages spread over `runIds` and judges the answers. */
async function messageBurst(runIds: string[], round: number, into: Findings, accepted: Map<string, string[]>) {
  const bodies = Array.from({ length: BURST }, (_, i) => ({ runId: runIds[i % runIds.length]!, content: `round ${round} message ${i}` }));
  const answers = await Promise.all(bodies.map((b) => api("POST", `/api/runs/${b.runId}/messages`, { body: { content: b.content } })));
  const winners = answers.flatMap((a, i) => (a.status === 202 ? [i] : []));
  for (const i of winners) accepted.get(bodies[i]!.runId)!.push(bodies[i]!.content);
  into.accepted.push(winners.length);
  judge(
    answers,
    winners,
    winners.map((i) => bodies[i]!.runId),
    into,
  );
}

/** Idle direct runs of the agent (row 0 only). */
async function idleRuns(agentId: string, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const run = await api("POST", `/api/agents/${agentId}/runs`, { body: {} });
    expect(run.status, run.text).toBe(201);
    ids.push(run.json.id);
  }
  return ids;
}

describe("the generation lock under concurrent requests", () => {
  for (const [title, runCount] of [
    ["across two idle runs of one agent", 2],
    ["to one run", 1],
  ] as const) {
    it(`GEN-002 / GEN-003: ${BURST} messages at once ${title}: one 202, the rest 409 agent.busy naming its run, every run usable after (${ROUNDS} rounds)`, async () => {
      const { agentId, model } = await guildWithAgent("Burst");
      const runIds = await idleRuns(agentId, runCount);
      const accepted = new Map(runIds.map((id) => [id, [] as string[]]));
      const found = findings();
      for (let round = 1; round <= ROUNDS; round++) {
        await script(model, [SLOW_REPLY]);
        await messageBurst(runIds, round, found, accepted);
        await agentIdle(agentId);
        await expectUsable(agentId, runIds, `after round ${round}`, accepted);
      }
      expect.soft(found.serverErrors, "5xx answers").toEqual([]);
      expect.soft(found.accepted, "202 answers per round").toEqual(Array(ROUNDS).fill(1));
      expect.soft(found.badRefusals, "refusals other than 409 agent.busy naming the generating run").toEqual([]);
      const byRun = await expectSound(runIds, accepted);
      expect.soft(overlaps(generationSpans(byRun)), "generations that ran at once").toEqual([]);
    }, 240_000);
  }

  it(`GEN-002: ${BURST} run creations at once with a message: one 201 that generates, the rest 409 agent.busy, no run left behind (${ROUNDS} rounds)`, async () => {
    const { agentId, model } = await guildWithAgent("Creations");
    const found = findings();
    const created: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await script(model, [SLOW_REPLY]);
      const answers = await Promise.all(
        Array.from({ length: BURST }, (_, i) => api("POST", `/api/agents/${agentId}/runs`, { body: { message: `round ${round} run ${i}` } })),
      );
      const winners = answers.flatMap((a, i) => (a.status === 201 ? [i] : []));
      found.accepted.push(winners.length);
      created.push(...winners.map((i) => answers[i]!.json.id as string));
      judge(
        answers,
        winners,
        winners.map((i) => answers[i]!.json.id as string),
        found,
      );
      await agentIdle(agentId);
    }
    expect.soft(found.serverErrors, "5xx answers").toEqual([]);
    expect.soft(found.accepted, "201 answers per round").toEqual(Array(ROUNDS).fill(1));
    expect.soft(found.badRefusals, "refusals other than 409 agent.busy naming the generating run").toEqual([]);
    const listed = await api("GET", `/api/agents/${agentId}/runs?limit=200`);
    const leftBehind = listed.json.data.filter((r: { id: string }) => !created.includes(r.id));
    expect.soft(leftBehind.length, `runs left behind by refused creations (of ${listed.json.data.length} listed)`).toBe(0);
    for (const runId of created) {
      const rows = await transcript(runId);
      expect
        .soft(
          rows.map((r) => r.role),
          `run ${runId}`,
        )
        .toEqual(["system", "user", "assistant"]);
      expect.soft(errorCodes(await readRun(runId))).toEqual([]);
    }
  }, 240_000);

  it(`GEN-002 / GROUP-009: a group delivery meeting a burst of direct messages: one generation at a time, the delivery arrives once, no false interruption (${ROUNDS} rounds)`, async () => {
    const { guildId, agentId, model } = await guildWithAgent("Delivery race");
    const [directId] = await idleRuns(agentId, 1);
    const accepted = new Map([[directId!, [] as string[]]]);
    const found = findings();
    const posts: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await script(model, [SLOW_REPLY]);
      // Round 1 sends everything together; later rounds send the direct burst up to 200 ms
      // after the post, so it meets the delivery at each step of its opening.
      const offset = (round - 1) * 50;
      const post = api("POST", `/api/guilds/${guildId}/chat`, { body: { content: `round ${round}: news for everyone` } });
      const bodies = Array.from({ length: BURST - 1 }, (_, i) => `round ${round} direct ${i}`);
      const direct = bodies.map((content) =>
        new Promise((r) => setTimeout(r, offset)).then(() => api("POST", `/api/runs/${directId}/messages`, { body: { content } })),
      );
      const [posted, ...answers] = await Promise.all([post, ...direct]);
      expect(posted.status, posted.text).toBe(201);
      posts.push(posted.json.seq);
      await agentIdle(agentId);
      const groups = await groupRuns(agentId, round);
      const winners = answers.flatMap((a, i) => (a.status === 202 ? [i] : []));
      for (const i of winners) accepted.get(directId!)!.push(bodies[i]!);
      found.accepted.push(winners.length);
      // Refused direct messages name whichever run held the lock: the direct run when a
      // message won, or the group run this post opened.
      judge(answers, winners, [...(winners.length ? [directId!] : []), ...(groups[0] ? [groups[0].id] : [])], found);
      await expectUsable(agentId, [directId!], `after round ${round}`, accepted);
    }
    expect.soft(found.serverErrors, "5xx answers").toEqual([]);
    expect
      .soft(
        found.accepted.every((n) => n <= 1),
        `direct 202 answers per round: ${found.accepted}`,
      )
      .toBe(true);
    expect.soft(found.badRefusals, "refusals other than 409 agent.busy naming the generating run").toEqual([]);
    const groups = await groupRuns(agentId, ROUNDS);
    expect
      .soft(
        groups.map((r) => [r.status, r.metadata.group_chat_through_seq]),
        "one completed group run per post",
      )
      .toEqual([...posts].reverse().map((seq) => ["completed", seq]));
    for (const run of groups) expect.soft(errorCodes(run), `errors of group run ${run.id}`).not.toContain("generation.interrupted");
    const byRun = await expectSound([directId!], accepted);
    for (const run of groups) byRun[run.id] = await transcript(run.id);
    expect.soft(overlaps(generationSpans(byRun)), "generations that ran at once").toEqual([]);
  }, 300_000);
});

/** The agent's group runs (newest first) once `count` of them exist and none generates. */
async function groupRuns(agentId: string, count: number) {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const list = (await api("GET", `/api/agents/${agentId}/runs?kind=group&limit=200`)).json.data as Array<{ id: string }>;
    if (list.length >= count) {
      await agentIdle(agentId);
      return Promise.all(list.map((r) => readRun(r.id)));
    }
    if (Date.now() > deadline) throw new Error(`${list.length} group runs after 45 s, expected ${count}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
