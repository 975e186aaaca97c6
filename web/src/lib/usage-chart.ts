/** The Usage page's date ranges and chart scales; pure. Days are UTC, as the API's. */
import { addDays, monthStart, utcDay } from "../../../core/shared/date-range";

export interface DayRange {
  from: string;
  to: string;
}

/** The range buttons: this month to date, or the last N days including today. */
export const PRESETS = [
  { id: "month", label: "This month" },
  { id: "7", label: "7 days" },
  { id: "30", label: "30 days" },
  { id: "90", label: "90 days" },
] as const;

export type PresetId = (typeof PRESETS)[number]["id"];

/**
 * The range of a preset on a given day.
 *
 * @example presetRange("7", new Date("2026-11-30T10:00:00Z")) // { from: "2026-11-24", to: "2026-11-30" }
 */
export function presetRange(id: PresetId, now: Date): DayRange {
  const to = utcDay(now);
  return id === "month" ? { from: monthStart(to), to } : { from: addDays(to, 1 - Number(id)), to };
}

/** The preset a range equals, if any, so its button shows as pressed. */
export function presetOf(range: DayRange, now: Date): PresetId | undefined {
  return PRESETS.find((p) => {
    const r = presetRange(p.id, now);
    return r.from === range.from && r.to === range.to;
  })?.id;
}

/**
 * A round top for an axis at or above `max` (1, 2 or 5 times a power of ten), so its
 * tick reads as a plain figure.
 *
 * @example niceMax(0.0032) // 0.005
 * @example niceMax(0) // 1
 */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max * (1 - 1e-9)) return step * power;
  return 10 * power;
}

/**
 * Indexes of the days to label on the x axis: at most `most`, evenly spaced, always the
 * first and the last.
 *
 * @example labelledDays(30, 6) // [0, 6, 12, 18, 24, 29]
 */
export function labelledDays(count: number, most: number): number[] {
  if (count <= most) return Array.from({ length: count }, (_, i) => i);
  const step = Math.ceil((count - 1) / (most - 1));
  const out: number[] = [];
  for (let i = 0; i < count - 1; i += step) out.push(i);
  if (count - 1 - out.at(-1)! < step / 2) out.pop();
  out.push(count - 1);
  return out;
}

/**
 * Runs of consecutive days within one month: the month-to-date line starts again at
 * zero on the first of each month, so it is drawn as one line per month.
 *
 * @example monthRuns(["2026-01-30", "2026-01-31", "2026-02-01"]) // [[0, 1], [2]]
 */
export function monthRuns(dates: string[]): number[][] {
  const runs: number[][] = [];
  dates.forEach((date, i) => {
    if (i > 0 && date.slice(0, 7) === dates[i - 1]!.slice(0, 7)) runs.at(-1)!.push(i);
    else runs.push([i]);
  });
  return runs;
}

/** A UTC day as "30 Nov". */
export const shortDay = (date: string) => new Date(`${date}T00:00:00Z`).toLocaleDateString("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });
