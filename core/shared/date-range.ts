/**
 * The date range of the usage reports (summary and daily series). Days are UTC calendar
 * days, as the monthly spend limit's months are (usageMonth): a row belongs to the UTC
 * date of its created_at. Both ends are inclusive. The API reads a usage query with it and
 * the console its range form and presets, so both read a date alike.
 */

/** A bad `from` or `to`, in the shape of the API's FieldIssue (core/validation/issues.ts), which this leaf does not import. */
export interface RangeIssue {
  field: "from" | "to";
  message: string;
}

/** The longest range one request may ask for: a year, leap day included. */
export const MAX_RANGE_DAYS = 366;

export interface DateRange {
  /** First day, `YYYY-MM-DD`. */
  from: string;
  /** Last day, `YYYY-MM-DD`, inclusive. */
  to: string;
  /** Days from `from` to `to`, both counted. */
  days: number;
}

const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The UTC date of an instant, `YYYY-MM-DD`. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/** Milliseconds at UTC midnight of a `YYYY-MM-DD` that names a real date, else null. */
function dayMs(text: string): number | null {
  const m = ISO_DATE.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(year, month - 1, day);
  // Date.UTC rolls 2026-02-30 over into March: a real date reads back the same.
  return utcDay(new Date(ms)) === text && year >= 1970 ? ms : null;
}

/** The day `n` days after a `YYYY-MM-DD` (before, when negative). */
export const addDays = (day: string, n: number) => utcDay(new Date(dayMs(day)! + n * DAY_MS));

/** The first day of the month of a `YYYY-MM-DD`. */
export const monthStart = (day: string) => `${day.slice(0, 7)}-01`;

/**
 * Reads `from` and `to` of a usage query. Without `to` the range ends today (UTC);
 * without `from` it starts on the first day of `to`'s month, so no parameters mean
 * this month to date. Each bad parameter is named.
 *
 * @example parseDateRange({}, new Date("2026-11-30T12:00:00Z"))
 * // { range: { from: "2026-11-01", to: "2026-11-30", days: 30 } }
 * @example parseDateRange({ from: "2026-12-01", to: "2026-11-01" }, now)
 * // { issues: [{ field: "from", message: "2026-12-01 is after to (2026-11-01)" }] }
 */
export function parseDateRange(query: { from?: string | undefined; to?: string | undefined }, now: Date): { range: DateRange } | { issues: RangeIssue[] } {
  const issues: RangeIssue[] = [];
  const read = (field: "from" | "to", text: string | undefined, fallback: () => string) => {
    if (text === undefined) return fallback();
    if (dayMs(text) === null) issues.push({ field, message: `expected a date YYYY-MM-DD from 1970 on, got ${JSON.stringify(text.slice(0, 40))}` });
    return text;
  };
  const to = read("to", query.to, () => utcDay(now));
  const from = read("from", query.from, () => monthStart(dayMs(to) === null ? utcDay(now) : to));
  if (issues.length) return { issues };
  const days = Math.round((dayMs(to)! - dayMs(from)!) / DAY_MS) + 1;
  if (days < 1) return { issues: [{ field: "from", message: `${from} is after to (${to})` }] };
  if (days > MAX_RANGE_DAYS) return { issues: [{ field: "to", message: `the range spans ${days} days; at most ${MAX_RANGE_DAYS}` }] };
  return { range: { from, to, days } };
}
