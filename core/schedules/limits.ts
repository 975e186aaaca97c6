/** Routines one agent may have unless the operator sets MAX_SCHEDULES_PER_AGENT. */
export const DEFAULT_MAX_SCHEDULES_PER_AGENT = 20;

/**
 * The configured cap: a positive whole number, or the default for anything else.
 *
 * @example maxSchedulesPerAgent("50") // 50
 */
export function maxSchedulesPerAgent(configured: string | undefined): number {
  const value = Number(configured);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_MAX_SCHEDULES_PER_AGENT;
}

/** A create refused because the agent already has as many routines as it may. */
export class ScheduleLimitReached extends Error {
  override name = "ScheduleLimitReached";
  constructor(readonly limit: number) {
    super(`An agent may have at most ${limit} routines; delete or change one instead of creating another`);
  }
}
