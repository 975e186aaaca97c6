import { riding } from "../../../core/db/outage";
import type { Deadline } from "../../common/deadlines";
import type { RunLifecycle } from "../run/lifecycle";
import { AgentUnavailable } from "../run/opening";
import type { RunContext, RunListener } from "../state/context";
import type { RunSession } from "../state/run-session";
import { completeDelivery, planGroupDelivery, reportDelivery } from "./group-opening";
import { BUSY_RETRY_MS } from "./schedule";

/** The agent's one pending group delivery, on the object's alarm. */
export const GROUP_DELIVERY = "group.delivery";

type Payload = { agent_id: string; guild_id: string };

/**
 * The agent's side of group dispatch (GROUP-009, GROUP-011). The guild object queues a
 * delivery by setting this deadline; being in the object's storage, it survives a restart
 * of either object. When it fires on a busy agent it waits: it is tried again when the
 * generation ends (`pull`), with a timed retry behind that. A delivery is never refused.
 * Many queued rows make one delivery: the run covers everything after the cursor.
 */
export class GroupDelivery implements RunListener {
  constructor(
    private readonly context: RunContext,
    private readonly runs: RunLifecycle,
  ) {}

  /** The guild has new rows for this agent. */
  async queue(agentId: string, guildId: string): Promise<void> {
    await this.context.deadlines.set(GROUP_DELIVERY, this.context.now(), { agent_id: agentId, guild_id: guildId } satisfies Payload);
  }

  /** The agent is free: a waiting delivery goes now. */
  async idle(): Promise<void> {
    const waiting = this.context.deadlines.get(GROUP_DELIVERY);
    if (waiting && waiting.dueAt > this.context.now()) await this.context.deadlines.set(GROUP_DELIVERY, this.context.now(), waiting.payload);
  }

  /** The deadline handler. Throwing keeps the entry for the multiplexer's backoff. */
  async fire(entry: Deadline): Promise<void> {
    const payload = entry.payload as Payload | undefined;
    if (!payload?.agent_id || !payload.guild_id) return;
    await this.runs.recovery.run();
    let outcome: "started" | "busy" | "skipped";
    try {
      outcome = this.context.lock.held() ? "busy" : await this.open(payload.agent_id, payload.guild_id);
    } catch (error) {
      // An archived agent reads nothing; its cursor stays, so nothing is lost if it returns.
      if (error instanceof AgentUnavailable) return;
      throw error;
    }
    if (outcome === "busy") await this.context.deadlines.set(GROUP_DELIVERY, this.context.now() + BUSY_RETRY_MS, payload);
  }

  /**
   * A group run ended (GROUP-011, CANCEL-008): its delivery is over and the cursor
   * advances through its snapshot seq. Other kinds of run are not ours.
   */
  async runEnded(session: RunSession): Promise<void> {
    // The cursor's write is idempotent (it only moves forward): worth waiting out an outage for,
    // or the next delivery would read the same rows again.
    await riding(() => this.context.database.use((db) => completeDelivery(db, this.context.env, session)));
  }

  /**
   * A delivery (GROUP-001/002): the public rows after the agent's cursor through the
   * latest one, as one group run. "skipped" when none of them wakes the agent.
   */
  private open(agentId: string, guildId: string): Promise<"started" | "busy" | "skipped"> {
    const { env } = this.context;
    return this.runs.open(agentId, new Date(this.context.now()), async (db, agent) => {
      const delivery = await planGroupDelivery(db, env, agentId, guildId);
      if (!delivery) return null;
      const throughSeq = delivery.metadata.group_chat_through_seq;
      return {
        kind: "group",
        run: { title: null, metadata: delivery.metadata },
        wake: delivery.wake,
        wakeMetadata: delivery.wakeMetadata,
        groupChat: delivery.groupChat,
        opened: (runId) => reportDelivery(db, env, runId, agentId, guildId, throughSeq, "started", agent.name),
      };
    });
  }
}
