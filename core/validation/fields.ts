import * as z from "zod";

// Workers forbid `new Function`; jitless parsing avoids zod probing for it on every isolate.
z.config({ jitless: true });

/** A positive whole number within [min, max]. */
export const boundedInt = (min: number, max: number) => z.int().min(min).max(max);

/** A single line of text: trimmed, not empty, no line breaks. */
export const oneLine = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[^\r\n]*$/, "must be a single line");

/** Names of environment variables, as secrets are exposed in the sandbox. */
export const envName = z.string().regex(/^[A-Z_][A-Z0-9_]{0,127}$/, "must be an environment variable name (A-Z, 0-9, _)");

/** Path ids are UUIDs; anything else cannot name a row and is simply not found. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

/**
 * An id a body or a query names: a uuid in the one canonical form, lower case, as path ids are
 * (workers/canonical-ids.ts), so an id in capitals names the same row wherever it is compared.
 *
 * @example idInput().parse("0B5E1C2A-1111-4111-8111-111111111111") // "0b5e1c2a-1111-4111-8111-111111111111"
 */
export const idInput = () => z.uuid().toLowerCase();
