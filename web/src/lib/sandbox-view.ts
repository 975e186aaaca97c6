/**
 * What the Browser and CLI tabs need apart from the API (pure, unit-tested in Node): the
 * messages the Browser view's page posts (workers/views/vnc-viewer.ts), and what to say while
 * the box comes up.
 */
import type { SandboxState } from "./api-types";

export interface ViewerMessage {
  state?: "connected" | "reconnecting" | "disconnected" | "failed";
  /** Why the page could not start (state "failed"). */
  message?: string;
  /** Text the box put on its clipboard. */
  clipboard?: string;
}

const STATES = new Set(["connected", "reconnecting", "disconnected", "failed"]);

/**
 * The view page's message, or null for anything else posted to the console's window.
 *
 * @example viewerMessage({ type: "vnc", clipboard: "hello" }) // { clipboard: "hello" }
 */
export function viewerMessage(data: unknown): ViewerMessage | null {
  if (data === null || typeof data !== "object" || (data as { type?: unknown }).type !== "vnc") return null;
  const d = data as Record<string, unknown>;
  const out: ViewerMessage = {};
  if (typeof d.state === "string" && STATES.has(d.state)) out.state = d.state as ViewerMessage["state"];
  if (typeof d.message === "string") out.message = d.message;
  if (typeof d.clipboard === "string") out.clipboard = d.clipboard;
  return Object.keys(out).length ? out : null;
}

/**
 * The line shown while a view starts: the box's state as the API last said it.
 *
 * @example startingText({ box: "standard", status: "starting" }) // "Starting the agent's standard box…"
 */
export function startingText(state: Pick<SandboxState, "box" | "status"> | null): string {
  if (!state || state.status === "none" || state.status === "unavailable") return "Bringing the agent's box up…";
  if (state.status === "starting") return `Starting the agent's ${state.box} box…`;
  return "The box is running; opening the view…";
}

/**
 * How long an open view waits before asking for a new ticket: four fifths of what is left of
 * the current one, so a 15-minute ticket is renewed after 12 minutes, and never sooner than
 * a second from now.
 *
 * @example renewalDelay("2030-01-01T00:15:00Z", Date.parse("2030-01-01T00:00:00Z")) // 720_000
 */
export function renewalDelay(expiresAt: string, now: number): number {
  const left = Date.parse(expiresAt) - now;
  return Number.isFinite(left) ? Math.max(1000, Math.floor(left * 0.8)) : 1000;
}
