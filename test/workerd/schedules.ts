import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import type { Env } from "../../bindings/env";
import { openDatabase } from "../../core/db/client";
import { schedules } from "../../core/db/schema";
import { maxSchedulesPerAgent } from "../../core/schedules/limits";
import { call } from "./seed";

/** Once a year, so no alarm of these tests comes due on the real clock. */
export const YEARLY = "0 0 1 1 *";
/** A routine's body for the API or schedule_create: yearly unless `over` says otherwise. */
export const schedule = (over: Record<string, unknown> = {}) => ({
  description: "New year check",
  instruction: "Look at **records** since the last wake.",
  cron: YEARLY,
  ...over,
});

/** The cap this Worker is configured with (wrangler.toml's MAX_SCHEDULES_PER_AGENT). */
export const CAP = maxSchedulesPerAgent((env as unknown as Env).MAX_SCHEDULES_PER_AGENT);
/** The i-th routine of those that fill an agent up to its cap. */
export const routine = (i: number) => ({ description: `Routine ${i}`, instruction: "Check in.", cron: YEARLY });

/** How many routines the agent has, as stored. */
export async function countRoutines(agentId: string) {
  const { db, close } = openDatabase(env);
  try {
    return (await db.select({ id: schedules.id }).from(schedules).where(eq(schedules.agentId, agentId))).length;
  } finally {
    await close();
  }
}

/** Fills the agent up to `count` routines through the API. */
export async function fill(token: string, agentId: string, count: number) {
  for (let i = 0; i < count; i++) {
    const res = await call("POST", `/api/agents/${agentId}/schedules`, { token, body: routine(i) });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
  }
}
