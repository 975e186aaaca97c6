/**
 * What happens between a task run's turns (TASK-019, TASK-020): queued messages delivered as
 * the next turn's user row, or a wait for one on the object's alarm for keepAliveSeconds.
 */
import type { Database } from "../../core/db/client";
import { deliverMessages } from "../../core/db/task-run";
import { countRowTokens } from "../../core/projection/token-count";
import type { ChatPayload } from "../../core/projection/types";
import type { RunSession } from "../agent/state/run-session";
import type { DeadlineMultiplexer } from "../common/deadlines";

/** The keep-alive deadline of a waiting run on the object's alarm. */
export const KEEP_ALIVE = "task.keep_alive";

export type WakeReason = "message" | "stop" | "timeout";

/**
 * A waiting run's wake-up: a message, a stop, or its keep-alive deadline. A wake that comes
 * while nobody waits (a message during a turn) is kept for the next wait, which then
 * returns at once and lets the run look for messages again.
 */
export class TaskWait {
  private waiter: ((why: WakeReason) => void) | null = null;
  private early: WakeReason | null = null;

  wake(why: WakeReason): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter(why);
    } else if (why !== "timeout" && this.early !== "stop") this.early = why;
  }

  async until(deadlines: DeadlineMultiplexer, dueAt: number): Promise<WakeReason> {
    if (this.early) {
      const early = this.early;
      this.early = null;
      return early;
    }
    const woke = new Promise<WakeReason>((resolve) => (this.waiter = resolve));
    await deadlines.set(KEEP_ALIVE, dueAt);
    const why = await woke;
    await deadlines.clear(KEEP_ALIVE);
    return why;
  }
}

/** The messages as one user row opening the next generation, with their delivery in the same statement. */
export async function deliverAsRow(db: Database, session: RunSession, queued: Array<{ id: string; content: string }>, now: Date): Promise<void> {
  const generation = session.facts.generation + 1;
  const payload: ChatPayload = { role: "user", content: queued.map((m) => m.content).join("\n\n") };
  const metadata = { source: "task_message", message_ids: queued.map((m) => m.id) };
  await session.commit(db, { generation, role: "user", payload: payload as never, metadata, tokenCount: countRowTokens(payload, metadata) }, (tx, row) =>
    deliverMessages(
      tx,
      { ...row, generation },
      queued.map((m) => m.id),
      now,
    ),
  );
  session.facts = { ...session.facts, generation };
}
