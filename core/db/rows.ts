/**
 * Rows leave the API in the spec's snake_case names with ISO-8601 UTC times;
 * drizzle hands them over in camelCase with Dates. One mapping serves every resource.
 *
 * @example toWire({ guildId: "g", createdAt: new Date(0) }) // { guild_id: "g", created_at: "1970-01-01T00:00:00.000Z" }
 */
export function toWire<T extends Record<string, unknown>>(row: T, omit: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (omit.includes(key)) continue;
    out[snakeCase(key)] = value instanceof Date ? value.toISOString() : value;
  }
  return out;
}

/** The inverse for request bodies: snake_case fields to drizzle's camelCase columns. */
export function fromWire(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) out[camelCase(key)] = value;
  return out;
}

export const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const camelCase = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
