import type { Env } from "../../../bindings/env";
import type { Redactor } from "../../../core/output/redaction";
import type { DeadlineMultiplexer } from "../../common/deadlines";
import type { IdleConnection } from "../../common/idle-connection";
import type { SseHub } from "../../common/sse-hub";
import type { SandboxManager } from "../../sandbox/manager";
import type { GenerationLock } from "./generation-lock";
import type { RedactionMemory } from "./redaction-memory";
import type { RunSession } from "./run-session";
import type { SessionCache } from "./session-cache";

/**
 * Whom a run context serves: an agent's object (its chats, schedule wake-ups and group
 * deliveries) or a task's object (the task's runs). agentId is null only for an agent
 * object addressed by a bare id.
 */
export type Serves = { readonly kind: "agent"; readonly agentId: string | null } | { readonly kind: "task"; readonly taskId: string };

/**
 * What every room that runs generations receives: built once per object by openRunContext
 * (open-context.ts), for the agent's object and the task's object alike, so no layer
 * restates an ability as a callback of its own.
 *
 * @example
 *   const held = context.lock.active; // the generation this instance runs
 *   const rows = await context.database.use((db) => loadRows(db, runId, 0, 100));
 */
export interface RunContext {
  readonly env: Env;
  /** The agent or the task this object is. */
  readonly serves: Serves;
  /** The clock every room reads (deadlines, leases, rows); tests drive it. */
  now(): number;
  /** Randomness of the wake-window planner; tests may pin it. */
  random(): number;
  /** Work that outlives the request that started it (the generation loop). */
  waitUntil(work: Promise<unknown>): void;
  /** The object's one database connection (see IdleConnection). */
  readonly database: IdleConnection;
  /** The runs' event streams. */
  readonly hub: SseHub;
  /** One generation at a time per agent (GEN-002), with the heartbeat. */
  readonly lock: GenerationLock;
  /** The agent's named deadlines on the object's one alarm. */
  readonly deadlines: DeadlineMultiplexer;
  /** The runs held in memory between generations. */
  readonly sessions: SessionCache;
  /** Values of redaction sets kept past their generation: a run's secrets, valid tokens. */
  readonly redaction: RedactionMemory;
  /** The box (SBX-*): the agent's, or the task's (TASK-010); ensured at a generation's start, told when it ends. */
  readonly box: SandboxManager;
  /** The platform's redactor for log lines (its own keys). */
  readonly log: Redactor;
  /** The triggers, in the order they hear of runs ending and of the agent going idle (none for a task). */
  readonly listeners: readonly RunListener[];
}

/**
 * What a trigger hears of the runs (each implements what it needs): a group delivery
 * advances its cursor when its run ends and goes when the agent is idle; schedule firing
 * re-arms when the agent is idle or a schedule tool changed its routines.
 */
export interface RunListener {
  /** A generation ended and its run's status is settled; before the lock is released. */
  runEnded?(session: RunSession): Promise<void>;
  /** The agent is free again: a waiting trigger may go now. */
  idle?(agentId: string): Promise<void>;
  /** A schedule tool changed the agent's routines. */
  schedulesChanged?(agentId: string): Promise<void>;
}

/** The end of a run's generation, before its lock goes: the triggers, then the box (SBX-041, SBX-028, SEC-009). */
export async function runEnded(context: RunContext, session: RunSession): Promise<void> {
  for (const listener of context.listeners) await listener.runEnded?.(session);
  await context.box.generationEnded();
}

/** The agent is free: a waiting group delivery and due schedules go now. */
export async function agentIdle(context: RunContext, agentId: string): Promise<void> {
  for (const listener of context.listeners) await listener.idle?.(agentId);
}

/** A schedule tool changed the agent's routines: the schedule deadline re-arms. */
export async function schedulesChanged(context: RunContext, agentId: string): Promise<void> {
  for (const listener of context.listeners) await listener.schedulesChanged?.(agentId);
}

/** The agent this context serves; null for a task's object (or an agent object without a name). */
export function servedAgent(context: Pick<RunContext, "serves">): string | null {
  return context.serves.kind === "agent" ? context.serves.agentId : null;
}
