import { busy, type Outcome, refuse } from "../../../bindings/outcome";
import { generationStateColumns, generationStateOf, readOpeningState } from "../../../core/db/agent-state";
import { appendOpeningRow } from "../../../core/db/transcript";
import { countRowTokens } from "../../../core/projection/token-count";
import type { AttachmentRef, ChatPayload } from "../../../core/projection/types";
import { messageRefusal, type RunKind } from "../../../core/runs/rules";
import { toRun } from "../../../core/runs/wire";
import { interruptUnresolved } from "../generation/generation";
import { tokenCounterReady } from "../generation/token-ranks";
import { withLatestRun } from "../run/chain";
import { REQUEST_OUTAGE_POLICY, type RunLifecycle, refused, unavailable } from "../run/lifecycle";
import { searchOffered, writeOpening } from "../run/opening";
import type { RunContext } from "../state/context";
import type { RunSession } from "../state/run-session";

/** A created run: its id, and the run as the API shows it (JSON: RPC types cannot carry its free-form metadata). */
export type CreatedRun = { run_id: string; run: string };

export interface NewMessage {
  content: string;
  attachments?: AttachmentRef[];
}

/**
 * The operator's way in: a run opened through the API, and each user message on it, which
 * opens the run's next generation under the agent's lock (GEN-002/003). A request that
 * loses the race for the lock is busy (409 agent.busy) and leaves nothing behind.
 *
 * @example
 *   const created = await direct.createRun(agentId, { kind: "direct", message: { content: "hi" } });
 */
export class DirectRuns {
  constructor(
    private readonly context: RunContext,
    private readonly runs: RunLifecycle,
  ) {}

  /**
   * `POST /api/agents/:id/runs`: row 0, and with a message row 1 and a generation
   * (RUN-003/004). With a message the lock is taken before anything is written, so a
   * request that loses the race leaves no run behind.
   */
  createRun(agentId: string, input: { kind: RunKind; message?: NewMessage; title?: string | null }): Promise<Outcome<CreatedRun>> {
    return this.context.database.use(async (db) => {
      const { context } = this;
      await this.runs.recovery.run();
      await tokenCounterReady(context.env);
      const runId = crypto.randomUUID();
      let run: string;
      const claimed = input.message ? await context.lock.claim(runId, 1) : null;
      if (claimed && !claimed.ok) return claimed;
      try {
        const now = new Date(context.now());
        const state = await readOpeningState(db, agentId, now);
        const refusal = !state
          ? refuse(404, "agent.not_found", "No such agent")
          : state.agent.archivedAt
            ? refuse(409, "agent.archived", "The agent is archived")
            : null;
        if (refusal) {
          if (claimed) await context.lock.release(runId);
          return refusal;
        }
        const { message } = input;
        const title = input.title ?? (message ? message.content.slice(0, 80) || null : null);
        const opened = await writeOpening(db, state!, runId, now, {
          kind: input.kind,
          run: { title, metadata: {} },
          search: searchOffered(context.env),
          ...(message ? { wake: { role: "user", content: message.content }, wakeMetadata: userMetadata(message) } : {}),
        });
        if (!opened) throw new Error("the opening of a run without a claim wrote nothing");
        context.sessions.add(opened.session);
        // The API answers with the run as written, so the Worker need not read it back.
        run = JSON.stringify(toRun(opened.run, "0", { withSnapshot: true }));
      } catch (error) {
        if (claimed) await context.lock.release(runId);
        return unavailable(error);
      }
      // Written: from here a failure must not answer as if the run did not exist.
      if (claimed) await this.runs.generateWritten(runId, claimed, REQUEST_OUTAGE_POLICY);
      return { ok: true, run_id: runId, run };
    });
  }

  /** `POST /api/runs/:id/messages`: 409 while the agent generates (GEN-003); refusals per RUN-006/GEN-018. */
  postMessage(runId: string, message: NewMessage): Promise<Outcome<{ seq: number; generation: number }>> {
    return this.context.database.use(async (db) => {
      await this.runs.recovery.run();
      const held = this.context.lock.held();
      if (held) return busy(held.runId);
      let session: RunSession | null;
      try {
        session = await this.context.sessions.get(runId);
      } catch (error) {
        return unavailable(error);
      }
      if (!session) return refuse(404, "run.not_found", "No such run");
      const refusal = messageRefusal(session.facts);
      if (refusal) return refused(await withLatestRun(db, runId, refusal));
      return this.startGeneration(session, message);
    });
  }

  /**
   * A user message opens generation N+1: tool calls a failed generation left open get
   * their interruption results first, then the message and the run's generation number
   * commit in one statement.
   */
  private async startGeneration(session: RunSession, message: NewMessage): Promise<Outcome<{ seq: number; generation: number }>> {
    const { context } = this;
    await tokenCounterReady(context.env);
    const generation = session.facts.generation + 1;
    const claimed = await context.lock.claim(session.runId, generation);
    if (!claimed.ok) return claimed;
    let seq: number;
    try {
      const db = context.database.db();
      await interruptUnresolved(db, session, session.facts.generation);
      const payload: ChatPayload = { role: "user", content: message.content };
      const metadata = userMetadata(message);
      // The generation's start reads (secrets, spend) ride along with the row's statement.
      const alongside = {
        columns: generationStateColumns(session.scope, new Date(context.now())),
        take: (values: Record<string, unknown>) => {
          session.openedWith = generationStateOf(values);
        },
      };
      const row = await session.commit(
        db,
        { generation, role: "user", payload: payload as never, metadata, tokenCount: countRowTokens(payload, metadata) },
        (tx, draft) => appendOpeningRow(tx, { ...draft, generation }, alongside),
        REQUEST_OUTAGE_POLICY,
      );
      session.facts = { ...session.facts, generation };
      seq = row.seq;
    } catch (error) {
      context.sessions.forget(session);
      await context.lock.release(session.runId);
      return unavailable(error);
    }
    this.runs.generate(session, claimed);
    return { ok: true, seq, generation };
  }
}

/** A user row's metadata: the operator wrote it, with its attachments. */
function userMetadata(message: NewMessage): Record<string, unknown> {
  return { source: "operator", ...(message.attachments?.length ? { attachments: message.attachments } : {}) };
}
