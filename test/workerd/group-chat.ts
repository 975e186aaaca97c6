import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { Env } from "../../bindings/env";
import { openDatabase } from "../../core/db/client";
import { groupMessages } from "../../core/db/schema";
import { objectOf, settled, untilGenerating } from "./agents";
import { call } from "./seed";

/** Posts to the guild's chat as the operator. */
export async function postChat(token: string, guildId: string, content: string, tagged?: string[]) {
  const res = await call("POST", `/api/guilds/${guildId}/chat`, { token, body: { content, ...(tagged ? { tagged } : {}) } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json as { seq: number; tagged: string[]; depth: number };
}

/** The agent's group runs, oldest first. */
export async function groupRuns(token: string, agentId: string) {
  const res = await call("GET", `/api/agents/${agentId}/runs?limit=100`, { token });
  return (res.json.data as Array<{ id: string; kind: string; created_at: string }>).filter((r) => r.kind === "group").reverse();
}

/**
 * Waits until the agent has `count` group runs and nothing more is pending: no generation,
 * no queued delivery. Returns the settled runs, oldest first.
 */
export async function untilDelivered(token: string, agentId: string, count: number, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await groupRuns(token, agentId);
    const pending = (await objectOf(agentId).deadlines()).some((d) => d.name === "group.delivery");
    if (found.length >= count && !pending && !(await objectOf(agentId).generationState()).generating) {
      return Promise.all(found.map((r) => settled(token, r.id)));
    }
    if (Date.now() > deadline) throw new Error(`agent ${agentId}: ${found.length} of ${count} group runs after ${timeoutMs} ms (pending: ${pending})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Public rows written straight to the database: history for a test, waking nobody. */
export async function seedChatRows(guildId: string, count: number) {
  const { db, close } = openDatabase(env as unknown as Env);
  try {
    await db.insert(groupMessages).values(
      Array.from({ length: count }, (_, i) => ({
        guildId,
        seq: i + 1,
        authorKind: "operator",
        authorName: "operator",
        content: `history ${i + 1}`,
        tagged: [],
        depth: 0,
      })),
    );
  } finally {
    await close();
  }
}

/** Waits until the agent reads its first delivery: the run is written (the lock comes first) and generates. */
export async function untilReading(token: string, agentId: string) {
  for (let i = 0; i < 200 && (await groupRuns(token, agentId)).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  const [run] = await groupRuns(token, agentId);
  await untilGenerating(token, run!.id);
}
