import { Temporal } from "@js-temporal/polyfill";
import type { FieldIssue } from "../validation/issues";

/**
 * Wake windows as real instants (SCHED-024..028). A wake window is a local wall-clock
 * interval, every day, in an IANA zone; its instants come from Temporal, so a
 * daylight-saving change day has a shorter or longer window. The planner is in
 * wake-window.ts, which re-exports this module's public API.
 */

/** wake_window as stored on the schedule row (SCHED-024). */
export interface WakeWindow {
  /** IANA zone name that follows daylight saving, e.g. "Europe/Berlin". */
  timezone: string;
  /** 24-hour local "HH:MM". */
  start: string;
  /** 24-hour local "HH:MM"; before start means the window spans midnight (SCHED-026). */
  end: string;
  /** Ceiling on wake-ups per window (SCHED-036). */
  max_wakes: number;
}

/** One day's window as real instants, half-open: [start, end). */
export interface WindowSpan {
  start: Date;
  end: Date;
}

/** A window as epoch milliseconds, half-open: [start, end). Internal to the schedules modules. */
export type Span = { start: number; end: number };

/** Floor on a gap between fires, and the least time per wake-up a window must leave (SCHED-028, SCHED-031). */
export const MIN_GAP_MS = 5 * 60_000;

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after local midnight, or null when not a 24-hour "HH:MM". */
function minutesOf(hhmm: unknown): number | null {
  const m = typeof hhmm === "string" ? HHMM.exec(hhmm) : null;
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** An IANA name Temporal knows. Offsets such as "+02:00" resolve too but follow no daylight saving. */
function isIanaZone(tz: unknown): tz is string {
  if (typeof tz !== "string" || tz === "" || /^[+-]/.test(tz)) return false;
  try {
    Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(tz);
    return true;
  } catch {
    return false;
  }
}

/** Nominal window length in minutes: end minus start, a day added when it spans midnight. */
function nominalMinutes(start: number, end: number): number {
  return (end - start + 1440) % 1440;
}

/**
 * Field issues of a wake_window, empty when valid. Each names the bad field
 * (`wake_window.timezone`, `.start`, `.end`, `.max_wakes`) for the API's 422.
 *
 * @example validateWakeWindow({ timezone: "Europe/Berlin", start: "09:00", end: "09:20", max_wakes: 5 })
 * // [{ field: "wake_window.max_wakes", message: "max_wakes must leave at least 5 minutes per wake-up: ..." }]
 */
export function validateWakeWindow(w: unknown): FieldIssue[] {
  if (typeof w !== "object" || w === null || Array.isArray(w)) return [{ field: "wake_window", message: "must be an object" }];
  const { timezone, start, end, max_wakes } = w as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  if (!isIanaZone(timezone)) issues.push({ field: "wake_window.timezone", message: "must be an IANA time zone name, e.g. Europe/Berlin" });
  const s = minutesOf(start);
  const e = minutesOf(end);
  if (s === null) issues.push({ field: "wake_window.start", message: "must be a 24-hour time HH:MM" });
  if (e === null) issues.push({ field: "wake_window.end", message: "must be a 24-hour time HH:MM" });
  else if (s !== null && s === e) issues.push({ field: "wake_window.end", message: "must differ from start" });
  if (typeof max_wakes !== "number" || !Number.isInteger(max_wakes) || max_wakes < 1) {
    issues.push({ field: "wake_window.max_wakes", message: "must be a positive integer" });
  } else if (s !== null && e !== null && s !== e) {
    const minutes = nominalMinutes(s, e);
    if (minutes / max_wakes < MIN_GAP_MS / 60_000) {
      issues.push({
        field: "wake_window.max_wakes",
        message: `max_wakes must leave at least 5 minutes per wake-up: a ${minutes}-minute window fits at most ${Math.floor(minutes / 5)}`,
      });
    }
  }
  return issues;
}

/** A validated window in minutes after local midnight (internal to the schedules modules). */
export interface Parsed {
  tz: string;
  start: number;
  end: number;
  spans: boolean;
  max: number;
}

/** The planners take stored (validated) windows; a malformed one is a bug, so it throws. */
export function parse(w: WakeWindow): Parsed {
  const start = minutesOf(w.start);
  const end = minutesOf(w.end);
  if (start === null || end === null || start === end || !Number.isInteger(w.max_wakes) || w.max_wakes < 1) {
    throw new Error(`invalid wake_window ${JSON.stringify(w)}`);
  }
  return { tz: w.timezone, start, end, spans: end < start, max: w.max_wakes };
}

const DAY_MS = 86_400_000;

/**
 * Local wall time on a day (days since 1970-01-01, as a calendar date) → epoch ms.
 * "compatible" disambiguation: a time in a spring-forward gap moves forward by the gap
 * (02:30 → 03:30 CEST), so a window lying wholly in the gap keeps its length; a time that
 * occurs twice takes its first occurrence.
 */
function wallToMs(tz: string, day: number, minutes: number): number {
  const date = new Date(day * DAY_MS);
  const fields = { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: Math.floor(minutes / 60), minute: minutes % 60 };
  return Temporal.ZonedDateTime.from({ timeZone: tz, ...fields }, { disambiguation: "compatible" }).epochMilliseconds;
}

/**
 * The window that opens on local calendar day `day`, or null when a DST change leaves none.
 * It never starts before the previous day's window ends: with "compatible", an end in a
 * spring-forward gap can land after the next start, and two windows must never overlap
 * (window_fires belongs to exactly one window). So windows open and end in day order.
 * Memoised: zone rules do not change while an isolate lives, and the planners ask for the
 * same few days on every call.
 */
const spanCache = new Map<string, Span | null>();
function spanOfDay(p: Parsed, day: number): Span | null {
  const key = `${p.tz}|${p.start}|${p.end}|${day}`;
  let span = spanCache.get(key);
  if (span === undefined) {
    const endDay = p.spans ? day + 1 : day;
    const end = wallToMs(p.tz, endDay, p.end);
    const start = Math.max(wallToMs(p.tz, day, p.start), wallToMs(p.tz, endDay - 1, p.end));
    span = end > start ? { start, end } : null;
    if (spanCache.size >= 4096) spanCache.clear();
    spanCache.set(key, span);
  }
  return span;
}

function toSpan(s: Span): WindowSpan {
  return { start: new Date(s.start), end: new Date(s.end) };
}

/** The window (epoch ms) holding `ms`, if any. */
export function spanAt(p: Parsed, ms: number): Span | null {
  // Offsets stay within a day, so the local date is the UTC date ±1 and the window holding
  // `ms` opened that day or the day before (over midnight); a day more on each side covers
  // clocks that jump across midnight. Windows never overlap, so at most one matches.
  const utcDay = Math.floor(ms / DAY_MS);
  for (let day = utcDay - 2; day <= utcDay + 2; day++) {
    const s = spanOfDay(p, day);
    if (s && s.start <= ms && ms < s.end) return s;
  }
  return null;
}

/** The first window (epoch ms) opening strictly after `ms`. */
export function spanAfter(p: Parsed, ms: number): Span {
  // Windows open in day order; a DST day may have none, so look a week ahead.
  const utcDay = Math.floor(ms / DAY_MS);
  for (let day = utcDay - 2; day <= utcDay + 8; day++) {
    const s = spanOfDay(p, day);
    if (s && s.start > ms) return s;
  }
  throw new Error(`no wake window opens within a week after ${new Date(ms).toISOString()}`);
}

/**
 * The window holding `instant`, if any.
 *
 * @example windowAt({ timezone: "UTC", start: "22:00", end: "02:00", max_wakes: 2 }, new Date("2026-01-02T01:00:00Z"))
 * // { start: 2026-01-01T22:00Z, end: 2026-01-02T02:00Z }
 */
export function windowAt(window: WakeWindow, instant: Date): WindowSpan | null {
  const s = spanAt(parse(window), instant.getTime());
  return s ? toSpan(s) : null;
}

/**
 * The first window that opens strictly after `after` (so, from inside a window, the next one).
 *
 * @example nextWindow({ timezone: "UTC", start: "09:00", end: "17:00", max_wakes: 4 }, new Date("2026-01-01T10:00:00Z"))
 * // { start: 2026-01-02T09:00Z, end: 2026-01-02T17:00Z }
 */
export function nextWindow(window: WakeWindow, after: Date): WindowSpan {
  return toSpan(spanAfter(parse(window), after.getTime()));
}
