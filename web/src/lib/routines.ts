import type { Schedule, ScheduleCreate, WakeWindow } from "./api";

/** The Routine tab's form values, trigger text and time display; pure. */

export type Trigger = "cron" | "window";

export interface RoutineValues {
  trigger: Trigger;
  description: string;
  instruction: string;
  cron: string;
  timezone: string;
  start: string;
  end: string;
  max_wakes: string;
}

/** The browser's IANA zone, the natural default of a new wake window. */
export function localZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** The form values of a routine (sensible defaults for a new one). */
export function routineValues(schedule: Schedule | null, zone = localZone()): RoutineValues {
  const w = schedule?.wake_window;
  return {
    trigger: schedule && !schedule.cron ? "window" : "cron",
    description: schedule?.description ?? "",
    instruction: schedule?.instruction ?? "",
    cron: schedule?.cron ?? "",
    timezone: w?.timezone ?? zone,
    start: w?.start ?? "09:00",
    end: w?.end ?? "17:00",
    max_wakes: w ? String(w.max_wakes) : "3",
  };
}

/** The wake window of the values; max_wakes as a number when it is a whole one, else as typed, for the API to name. */
function windowOf(v: RoutineValues): WakeWindow | Record<string, unknown> {
  const wakes = v.max_wakes.trim();
  return { timezone: v.timezone.trim(), start: v.start.trim(), end: v.end.trim(), max_wakes: /^\d+$/.test(wakes) ? Number(wakes) : wakes };
}

/**
 * The body to send: on create the description, instruction and the chosen trigger; on
 * edit only what changed (a changed trigger replaces the other one, which is sent as null,
 * since the API replans a routine from now whenever it receives a trigger).
 *
 * A max_wakes typed badly goes as typed, so that the API's 422 names the field: hence the casts.
 *
 * @example routineBody({ ...values, trigger: "cron", cron: "0 8 * * *" }, null) // { description, instruction, cron: "0 8 * * *" }
 */
export function routineBody(values: RoutineValues, initial: Schedule | null): ScheduleCreate {
  const trigger = values.trigger === "cron" ? { cron: values.cron.trim() } : { wake_window: windowOf(values) as WakeWindow };
  if (!initial) return { description: values.description, instruction: values.instruction, ...trigger };
  const before = routineValues(initial);
  const body: Record<string, unknown> = {};
  if (values.description !== before.description) body.description = values.description;
  if (values.instruction !== before.instruction) body.instruction = values.instruction;
  const triggerChanged =
    values.trigger !== before.trigger ||
    (values.trigger === "cron" ? values.cron.trim() !== before.cron : JSON.stringify(windowOf(values)) !== JSON.stringify(windowOf(before)));
  if (triggerChanged) {
    Object.assign(body, trigger);
    if (values.trigger !== before.trigger) body[values.trigger === "cron" ? "wake_window" : "cron"] = null;
  }
  return body as ScheduleCreate;
}

/**
 * A routine's trigger, readably.
 *
 * @example triggerText({ cron: null, wake_window: { timezone: "Europe/Berlin", start: "09:00", end: "17:00", max_wakes: 3 } })
 * // "random 3× between 09:00 and 17:00 (Europe/Berlin)"
 */
export function triggerText(schedule: Pick<Schedule, "cron" | "wake_window">): string {
  const w = schedule.wake_window;
  if (w) return `random ${w.max_wakes}× between ${w.start} and ${w.end} (${w.timezone})`;
  return schedule.cron ? `cron ${schedule.cron} (UTC)` : "–";
}

/** A timestamp in UTC, "2026-05-01 08:00 UTC". */
export function utc(iso: string | null | undefined): string {
  if (!iso) return "–";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A timestamp as wall time in an IANA zone, "Fri 1 May, 10:00 Europe/Berlin"; the ISO text when the zone is unknown. */
export function inZone(iso: string, zone: string): string {
  try {
    const text = new Date(iso).toLocaleString("en-GB", {
      timeZone: zone,
      weekday: "short",
      day: "numeric",
      month: "short",
      hour: "2-digit",
      minute: "2-digit",
    });
    return `${text} ${zone}`;
  } catch {
    return iso;
  }
}

/** The first 12 hex digits of an instruction hash, as the run view shows it. */
export const shortHash = (hash: string | null | undefined): string => (hash ? hash.slice(0, 12) : "–");

/** Whether a run fired with an instruction other than the routine's current one (UI-004). */
export const olderInstruction = (runHash: string | null | undefined, schedule: Pick<Schedule, "instruction_hash">): boolean =>
  Boolean(runHash) && runHash !== schedule.instruction_hash;
