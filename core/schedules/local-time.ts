/**
 * Local wall-clock time in an IANA zone, from the runtime's Intl time-zone data: the same
 * in Node and workerd, and a few microseconds a conversion where the Temporal polyfill
 * took about 0.2 ms, which matters because the planners resolve several days' windows
 * on a plan.
 *
 * A wall time is written as milliseconds like an instant: the instant that wall time
 * would be in UTC, `Date.UTC(year, month - 1, day, hour, minute)`.
 */

const HOUR_MS = 3_600_000;
/** UTC offsets stay within -12 h..+14 h; every instant showing a wall time lies within this of it. */
const REACH_MS = 15 * HOUR_MS;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws a RangeError for a zone Intl does not know. */
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(tz, f);
  }
  return f;
}

/**
 * Whether Intl knows `tz` as a time zone.
 *
 * @example isKnownZone("Europe/Berlin") // true
 * @example isKnownZone("Mars/Olympus") // false
 */
export function isKnownZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/**
 * The zone's offset at instant `ms` (local wall time minus the instant), to the second.
 *
 * @example offsetAt("Asia/Kolkata", Date.UTC(2026, 0, 1)) // 19_800_000 (+05:30)
 */
export function offsetAt(tz: string, ms: number): number {
  // en-US numeric reads "3/29/2026, 03:00:00": month, day, year, hour, minute, second.
  // Reading the digits of format() is three times faster than formatToParts.
  const [month, day, year, hour, minute, second] = formatter(tz).format(ms).match(/\d+/g)!.map(Number);
  const wall = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
  return wall - (ms - (((ms % 1000) + 1000) % 1000));
}

/** offsetAt on whole hours, memoised: the planners look at the same few hours over and over. */
const hourOffsets = new Map<string, number>();
function offsetAtHour(tz: string, hour: number): number {
  const key = `${tz}|${hour}`;
  let offset = hourOffsets.get(key);
  if (offset === undefined) {
    offset = offsetAt(tz, hour * HOUR_MS);
    if (hourOffsets.size >= 8192) hourOffsets.clear();
    hourOffsets.set(key, offset);
  }
  return offset;
}

/** The instants showing wall time `wall`, in order: none (skipped by a clock change), one, or two (repeated). */
function occurrences(tz: string, wall: number): { at: number[]; before: number; after: number } {
  // A zone changes its clocks at most once within a day and a bit, so the offsets on
  // either side of the reach are the only candidates, and equal ones mean no change.
  const before = offsetAtHour(tz, Math.floor((wall - REACH_MS) / HOUR_MS));
  const after = offsetAtHour(tz, Math.ceil((wall + REACH_MS) / HOUR_MS));
  if (before === after) return { at: [wall - before], before, after };
  const at = [wall - before, wall - after].filter((t) => offsetAt(tz, t) === wall - t).sort((a, b) => a - b);
  return { at, before, after };
}

/** The instant of the clock change in (lo, hi], to the second; the offsets at lo and hi differ. */
function changeBetween(tz: string, lo: number, hi: number): number {
  const from = offsetAt(tz, lo);
  let a = Math.floor(lo / 1000);
  let b = Math.ceil(hi / 1000);
  while (b - a > 1) {
    const mid = Math.floor((a + b) / 2);
    if (offsetAt(tz, mid * 1000) === from) a = mid;
    else b = mid;
  }
  return b * 1000;
}

/** A wall time resolved to instants: see resolveWall. */
export interface ResolvedWall {
  /** The first instant whose local time reaches the wall time. */
  first: number;
  /** For a wall time that occurs twice, the clock's second pass up to it: [the change, its second occurrence). */
  repeatedBefore: { start: number; end: number } | null;
}

/**
 * A local wall time as instants (OP-SCHED-7). `first`: a wall time that occurs once is
 * that instant; one that occurs twice (clocks falling back) is its first occurrence; one
 * that a spring-forward gap skips is the first valid instant after the gap, the change
 * itself. `repeatedBefore`: for a twice-occurring wall time, the stretch after the change
 * where local time is earlier than it again.
 *
 * @example resolveWall("Europe/Berlin", Date.UTC(2026, 2, 29, 2, 30)).first // 2026-03-29T01:00Z, 03:00 CEST
 * @example resolveWall("America/New_York", Date.UTC(2026, 10, 1, 1, 30))
 * // { first: 05:30Z (01:30 EDT), repeatedBefore: { start: 06:00Z (01:00 EST), end: 06:30Z (01:30 EST) } }
 */
export function resolveWall(tz: string, wall: number): ResolvedWall {
  const o = occurrences(tz, wall);
  if (o.at.length === 0) return { first: changeBetween(tz, wall - o.after, wall - o.before), repeatedBefore: null };
  const [first, second] = o.at as [number, number | undefined];
  return { first, repeatedBefore: second === undefined ? null : { start: changeBetween(tz, first, second), end: second } };
}
