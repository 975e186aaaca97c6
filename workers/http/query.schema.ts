import * as z from "zod";

/** Largest row seq (and any count) Postgres stores in an `integer` column. */
export const MAX_SEQ = 2_147_483_647;

/**
 * A whole number in a query string or header: digits only (not "1e3", "0x10", " " or
 * "1.5", which Number() would take), within [min, max], so nothing out of a column's
 * range reaches a query. With `fallback`, an absent value reads as it. The API document
 * shows it as the integer it stands for, not as the digit string it is parsed from.
 *
 * @example z.strictObject({ after_seq: queryInt(-1, MAX_SEQ, -1) })
 */
export function queryInt(min: number, max: number): z.ZodPipe<z.ZodPipe<z.ZodString, z.ZodTransform<number, string>>, z.ZodInt>;
export function queryInt(min: number, max: number, fallback: number): z.ZodDefault<z.ZodPipe<z.ZodPipe<z.ZodString, z.ZodTransform<number, string>>, z.ZodInt>>;
export function queryInt(min: number, max: number, fallback?: number) {
  const parsed = z
    .string()
    .regex(/^-?\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.int().min(min).max(max))
    // zod drops a default from the input side of a transform, so the description carries it.
    .meta({
      type: "integer",
      minimum: min,
      maximum: max,
      pattern: undefined,
      ...(fallback === undefined ? {} : { description: `Default ${fallback}` }),
    } as z.GlobalMeta);
  return fallback === undefined ? parsed : parsed.default(fallback);
}

/**
 * Where an event stream resumes: the Last-Event-ID header of a reconnecting EventSource
 * wins over `?after_seq`; each is named as given when malformed.
 *
 * @example resumePoint(c.req.header("last-event-id"), c.req.query("after_seq"), -1)
 */
export function resumePoint(
  header: string | undefined,
  query: string | undefined,
  min: number,
): { ok: true; after: number | undefined } | { ok: false; field: string; message: string } {
  const [field, value] = header !== undefined ? ["Last-Event-ID", header] : ["after_seq", query];
  if (value === undefined) return { ok: true, after: undefined };
  const parsed = queryInt(min, MAX_SEQ).safeParse(value);
  if (!parsed.success) return { ok: false, field, message: `must be a row seq from ${min} to ${MAX_SEQ}` };
  return { ok: true, after: parsed.data };
}

/**
 * The `?after_seq=` of an event stream, as documented. Checked by resumePoint, not here:
 * a reconnect's Last-Event-ID header wins over it, so a stale query string must not fail it.
 */
export const streamQuery = (min: number) =>
  z.object({
    after_seq: z
      .string()
      .optional()
      .meta({
        type: "integer",
        minimum: min,
        maximum: MAX_SEQ,
        description: "Resume after this row seq (a client that loaded the rows first); the Last-Event-ID header wins over it",
      } as z.GlobalMeta),
  });

/**
 * A `LIKE`/`ILIKE` pattern that finds `text` anywhere, with the text's own `%`, `_` and
 * `\` taken literally (Postgres's default escape character is the backslash).
 *
 * @example containsPattern("50%_off") // "%50\\%\\_off%"
 */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
