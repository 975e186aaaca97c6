import type { FieldIssue } from "../validation/issues";
import { isKnownZone, resolveWall } from "./local-time";

/**
 * Wake windows as real instants (SCHED-024..028). A wake window is a local wall-clock
 * interval, every day, in an IANA zone; a daylight-saving change day has a shorter or
 * longer window (OP-SCHED-7, see local-time.ts). The planner is in wake-window.ts, which
 * re-exports this module's public API.
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

/**
 * One day's window as real instants, half-open: [start, end). `skip`, on a day the clocks
 * fall back through the window's start, is the second pass through the repeated hour
 * before the start: inside [start, end) in real time, outside the window on the clock.
 */
export interface WindowSpan {
  start: Date;
  end: Date;
  skip?: { start: Date; end: Date };
}

/** A window as epoch milliseconds, half-open, with its skipped part as in WindowSpan. Internal to the schedules modules. */
export type Span = { start: number; end: number; skip?: { start: number; end: number } };

/** Floor on a gap between fires, and the least time per wake-up a window must leave (SCHED-028, SCHED-031). */
export const MIN_GAP_MS = 5 * 60_000;

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after local midnight, or null when not a 24-hour "HH:MM". */
function minutesOf(hhmm: unknown): number | null {
  const m = typeof hhmm === "string" ? HHMM.exec(hhmm) : null;
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** An IANA name Intl knows. Offsets such as "+02:00" follow no daylight saving, so they are refused. */
function isIanaZone(tz: unknown): tz is string {
  return typeof tz === "string" && tz !== "" && !/^[+-]/.test(tz) && isKnownZone(tz);
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
const MINUTE_MS = 60_000;

/**
 * The window that opens on local calendar day `day` (days since 1970-01-01), or null when
 * none of it exists. Both ends resolve to the first instant whose local time reaches them
 * (OP-SCHED-7): a time in a spring-forward gap becomes the first valid instant after the
 * gap (Berlin 02:25 on 2026-03-29 → 03:00 CEST), so a window keeps exactly the part of it
 * that exists (01:14-02:25 that day runs from 01:14 CET to 03:00 CEST; 02:39-03:38 is
 * 03:00-03:38 CEST), and a window wholly inside the gap (02:10-02:50) resolves to an empty
 * one: no window, so no wake-up that day (docs/decisions/0003-schedules.md says why). A repeated time (fall back) is its first occurrence, at both ends, so
 * a window through the repeated hour is one longer window with max_wakes as usual; when
 * its start is repeated, the clock's second pass before the start is its `skip`.
 * Resolution keeps wall-time order, so windows never overlap and open in day order.
 * Memoised: zone rules do not change while an isolate lives, and the planners ask for the
 * same few days on every call.
 */
const spanCache = new Map<string, Span | null>();
function spanOfDay(p: Parsed, day: number): Span | null {
  const key = `${p.tz}|${p.start}|${p.end}|${day}`;
  let span = spanCache.get(key);
  if (span === undefined) {
    const start = resolveWall(p.tz, day * DAY_MS + p.start * MINUTE_MS);
    const end = resolveWall(p.tz, (p.spans ? day + 1 : day) * DAY_MS + p.end * MINUTE_MS).first;
    span = end > start.first ? { start: start.first, end } : null;
    const repeated = start.repeatedBefore;
    if (span && repeated && repeated.start < end) span.skip = { start: repeated.start, end: Math.min(repeated.end, end) };
    if (spanCache.size >= 4096) spanCache.clear();
    spanCache.set(key, span);
  }
  return span;
}

function toSpan(s: Span): WindowSpan {
  const span: WindowSpan = { start: new Date(s.start), end: new Date(s.end) };
  if (s.skip) span.skip = { start: new Date(s.skip.start), end: new Date(s.skip.end) };
  return span;
}

/** Length of a window's existing part in ms: [start, end) without its skip. */
export function lengthOf(s: Span): number {
  return s.end - s.start - (s.skip ? s.skip.end - s.skip.start : 0);
}

/** Window time at instant `ms`: how much of the window's existing part lies before it (clamped to the window). */
export function elapsedAt(s: Span, ms: number): number {
  const t = Math.min(Math.max(ms, s.start), s.end);
  const skipped = s.skip ? Math.max(0, Math.min(t, s.skip.end) - s.skip.start) : 0;
  return t - s.start - skipped;
}

/** The instant at window time `x` (0 <= x < lengthOf(s)): never inside the skip. */
export function instantAt(s: Span, x: number): number {
  const t = s.start + x;
  return s.skip && t >= s.skip.start ? t + (s.skip.end - s.skip.start) : t;
}

/**
 * The window (epoch ms) holding `ms`, if any. An instant in a window's skip belongs to it:
 * a late fire there counts for that window (never more fires than max_wakes in one span),
 * and the next wake-up is planned from the skip's end.
 */
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
