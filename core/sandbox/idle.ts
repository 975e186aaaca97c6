/**
 * The sandbox idle timer (SBX-028..035, CANCEL-011) as pure rules: what an event does
 * to the deadline. The Container class renews its own activity on every proxied message,
 * so an open Browser or CLI tab would keep a box forever; this timer is the agent
 * object's own, and only what these rules allow moves it.
 */

/** SBX-028: five minutes. */
export const DEFAULT_IDLE_MS = 300_000;
/** SBX-030: view input restarts the timer at most this often. */
export const VIEW_INPUT_RESTART_MS = 30_000;

/**
 * The idle duration from the SANDBOX_IDLE_MS variable (tests shorten it); the default
 * for anything that is not a positive whole number of milliseconds.
 *
 * @example idleMs("2000") // 2000
 */
export function idleMs(value: string | undefined): number {
  const ms = Number(value);
  return Number.isSafeInteger(ms) && ms > 0 ? ms : DEFAULT_IDLE_MS;
}

export type IdleEvent =
  /** SBX-029: a generation starts. */
  | "generation_started"
  /** SBX-028: a generation ended. */
  | "generation_ended"
  /** SBX-028: the Browser or CLI tab brought the box up (or found it up). */
  | "view_opened"
  /** SBX-030: operator input on a proxied view. */
  | "view_input"
  /** SBX-035, CANCEL-011: the agent object started. */
  | "object_started";

export interface IdleState {
  /** A box is up (per the object's record). */
  running: boolean;
  generating: boolean;
  /** When the timer was last (re)armed, or null. */
  armedAt: number | null;
  /** The pending deadline, or null. */
  dueAt: number | null;
}

export type IdleAction = { action: "arm"; dueAt: number } | { action: "cancel" } | { action: "keep" };

/**
 * @example idleAction("view_input", { running: true, generating: false, armedAt: now - 10_000, dueAt }, now, 300_000) // { action: "keep" }
 */
export function idleAction(event: IdleEvent, state: IdleState, now: number, idle: number): IdleAction {
  const arm = { action: "arm", dueAt: now + idle } as const;
  switch (event) {
    case "generation_started":
      return state.dueAt === null ? { action: "keep" } : { action: "cancel" };
    case "generation_ended":
      return state.running ? arm : { action: "keep" };
    case "view_opened":
      // A generating agent's box is used as is (SBX-023); its generation's end arms the timer.
      return state.running && !state.generating ? arm : { action: "keep" };
    case "view_input":
      if (!state.running || state.generating) return { action: "keep" };
      if (state.armedAt !== null && now - state.armedAt < VIEW_INPUT_RESTART_MS) return { action: "keep" };
      return arm;
    case "object_started":
      return state.running && !state.generating && state.dueAt === null ? arm : { action: "keep" };
  }
}
