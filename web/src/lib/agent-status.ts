import type { AgentDeadline } from "./api";

/** The agent status panel's wording of deadlines; pure. */

/**
 * The deadlines an operator cares about, soonest first, each with a label: the next
 * routine wake-up, a queued group-chat delivery, the sandbox's idle timeout. The lease
 * heartbeat is the platform's own bookkeeping and stays out.
 *
 * @example upcoming([{ name: "schedule", kind: "schedule", due_at: "2026-05-01T08:00:00Z", version: 1, attempts: 0 }])
 * // [{ label: "Next routine wake-up", due_at: "2026-05-01T08:00:00Z", name: "schedule" }]
 */
export function upcoming(deadlines: AgentDeadline[]): Array<{ label: string; due_at: string; name: string }> {
  return deadlines
    .filter((d) => d.kind !== "generation.heartbeat")
    .map((d) => ({ label: deadlineLabel(d), due_at: d.due_at, name: d.name }))
    .sort((a, b) => a.due_at.localeCompare(b.due_at));
}

function deadlineLabel(d: AgentDeadline): string {
  if (d.kind === "schedule") return "Next routine wake-up";
  if (d.kind === "group.delivery") return "Group chat delivery";
  if (d.kind === "sandbox.idle") return "Sandbox idle timeout";
  if (d.kind === "sandbox.home_save") return "Sandbox home save";
  return d.name;
}

/** How often the panel asks while the page is visible: a finished generation shows within this. */
export const STATUS_POLL_MS = 2_500;
