import { CronExpression, CronExpressionParser, type CronFieldCollection } from "cron-parser";

/**
 * Cron triggers (SCHED-002): a 5-field expression (minute hour day-of-month month
 * day-of-week) evaluated in UTC. cron-parser also takes seconds, macros and `H`; the
 * spec says 5 fields, so those are refused here before cron-parser sees the text.
 */

export type CronCheck = { ok: true } | { ok: false; message: string };

const FIELD_NAMES = "minute hour day-of-month month day-of-week";

/** The whitespace-separated fields, so "0  9 * * *" and " 0 9 * * * " count as five. */
function fieldsOf(expr: string): string[] {
  const trimmed = expr.trim();
  return trimmed === "" ? [] : trimmed.split(/\s+/);
}

const FIELD_KEYS = ["minute", "hour", "dayOfMonth", "month", "dayOfWeek"] as const;

/**
 * A list field as the union of its items' values, when its items overlap. Vixie cron and
 * cronie take overlapping lists (`0,7`: Sunday twice; `1-5,3`) and match each minute
 * once; cron-parser refuses them as duplicates. Each item is read by cron-parser alone, so
 * names, ranges, steps and `L` mean what they mean there; day-of-week 7 is Sunday, 0.
 * A field without overlap, or with an item cron-parser refuses, stays as written (the
 * whole expression's parse then names the error).
 *
 * @example unionOfList("1-5,3", 4) // "1,2,3,4,5"
 */
function unionOfList(field: string, index: number): string {
  if (!field.includes(",")) return field;
  const key = FIELD_KEYS[index]!;
  const values = new Set<string>();
  let items = 0;
  for (const item of field.split(",")) {
    let itemValues: readonly (number | string)[];
    try {
      const probe = FIELD_KEYS.map((k) => (k === key ? item : "*")).join(" ");
      itemValues = CronExpressionParser.parse(probe, { tz: "UTC" }).fields[key].values;
    } catch {
      return field;
    }
    items += itemValues.length;
    for (const v of itemValues) values.add(key === "dayOfWeek" && v === 7 ? "0" : String(v));
  }
  return values.size < items ? [...values].join(",") : field;
}

/** cron-parser's expression object, anchored at `after`, always in UTC; overlapping lists read as their union. */
function parse(expr: string, after: Date) {
  let fields = parsedFields.get(expr);
  if (!fields) {
    fields = CronExpressionParser.parse(fieldsOf(expr).map(unionOfList).join(" "), { tz: "UTC" }).fields;
    if (parsedFields.size < PROVEN_VALID_MAX) parsedFields.set(expr, fields);
  }
  return new CronExpression(fields, { currentDate: after, tz: "UTC" });
}

/** Each expression's fields as cron-parser read them, per isolate: every fire of a schedule plans its next run. */
const parsedFields = new Map<string, CronFieldCollection>();

/**
 * Checks a schedule's cron expression. Lists whose items overlap are taken, as Vixie cron
 * and cronie take them (`0 0 * * 0,7`, `0 0 * * 1-5,3`). Rejects anything that is not
 * exactly five fields (seconds, `@daily` macros, too few fields), the `H` hash form
 * (cron-parser draws it from Math.random without a seed, so next_run_at would change on
 * every parse), and whatever cron-parser rejects, including expressions that never match
 * (`0 0 30 2 *`).
 *
 * @example validateCron("0 9 * * 1-5") // { ok: true }
 * @example validateCron("0 0 9 * * *") // { ok: false, message: "cron must have 5 fields (minute hour day-of-month month day-of-week), got 6; seconds are not supported" }
 */
export function validateCron(expr: string): CronCheck {
  if (typeof expr !== "string") return { ok: false, message: "cron must be a string" };
  // Every fire checks its schedule's expression again: one proven valid stays valid.
  if (provenValid.has(expr)) return { ok: true };
  const check = checkCron(expr);
  if (check.ok && provenValid.size < PROVEN_VALID_MAX) provenValid.add(expr);
  return check;
}

/** Expressions validateCron accepted, per isolate (a schedule fire parsed its own twice). */
const provenValid = new Set<string>();
const PROVEN_VALID_MAX = 10_000;

function checkCron(expr: string): CronCheck {
  const fields = fieldsOf(expr);
  if (fields.length !== 5) {
    const seconds = fields.length === 6 ? "; seconds are not supported" : "";
    const macro = fields.length === 1 && fields[0]!.startsWith("@") ? "; macros such as @daily are not supported" : "";
    return { ok: false, message: `cron must have 5 fields (${FIELD_NAMES}), got ${fields.length}${seconds}${macro}` };
  }
  // Among month and weekday names only `thu` has an "h"; any other "h" is the hash form.
  if (/h/i.test(expr.replace(/thu/gi, ""))) {
    return { ok: false, message: "cron does not support the H (hash) form; give explicit values" };
  }
  try {
    // Taking one run proves the expression can match at all (cron-parser gives up on a
    // loop limit for dates that never occur).
    parse(expr, new Date(0)).next();
  } catch (err) {
    return { ok: false, message: `invalid cron expression: ${err instanceof Error ? err.message : String(err)}` };
  }
  return { ok: true };
}

/**
 * The first run strictly after `after`, in UTC. Throws on an expression validateCron
 * rejects; call it only for stored (validated) schedules.
 *
 * @example nextCronRun("0 9 * * *", new Date("2026-01-01T09:00:00Z")) // 2026-01-02T09:00:00.000Z
 */
export function nextCronRun(expr: string, after: Date): Date {
  const check = validateCron(expr);
  if (!check.ok) throw new Error(check.message);
  return parse(expr, after).next().toDate();
}

/**
 * The next `count` runs strictly after `after`, for the Routine tab's preview.
 *
 * @example cronRuns("30 8 * * *", new Date("2026-01-01T00:00:00Z"), 2) // [2026-01-01T08:30Z, 2026-01-02T08:30Z]
 */
export function cronRuns(expr: string, after: Date, count: number): Date[] {
  const check = validateCron(expr);
  if (!check.ok) throw new Error(check.message);
  if (count <= 0) return [];
  return parse(expr, after)
    .take(count)
    .map((d) => d.toDate());
}
