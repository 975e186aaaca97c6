/**
 * The `record` binding (EXACT-011, OP-EXACT-3): record_create and record_list.
 * Records are time-ordered entries; a routine passes its wake-up's previous_run_at as
 * `since` to see only what arrived after its last run.
 */
import * as z from "zod";
import type { AgentRecord, ToolDefinition } from "./types";

/** Most records one record_list call returns. */
export const RECORD_LIST_MAX = 100;
/** record_list default `limit`. */
export const RECORD_LIST_DEFAULT = 20;
/** Longest record content, in characters. */
export const RECORD_CONTENT_MAX = 16_384;

// ISO 8601 date-time with a zone (or a bare date, read as UTC midnight). Checked here
// rather than with z.iso.datetime, whose large regex would be sent in every tool schema.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

const since = z
  .string()
  .refine((text) => ISO_TIME.test(text) && !Number.isNaN(Date.parse(text)), {
    message: "must be an ISO 8601 time such as 2026-01-01T00:00:00Z",
  })
  .nullable()
  .optional()
  .describe("Only records created after this ISO 8601 time (e.g. a wake-up's previous_run_at); null or absent for all");

/**
 * Appends a record.
 *
 * @example record_create({ kind: "lead", content: "Acme wants a demo" }) // '{"id":7,"kind":"lead","created_at":"…"}'
 */
export const recordCreate: ToolDefinition<{ kind: string; content: string; data?: Record<string, unknown> }> = {
  name: "record_create",
  description: "Append a time-stamped record (a finding, event or item) that later runs and routines can list.",
  binding: "record",
  parameters: z.strictObject({
    kind: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, "must be 1-64 characters of a-z, 0-9, _ . -")
      .default("note")
      .describe("Short category such as note, lead, alert (default note)"),
    content: z.string().min(1).max(RECORD_CONTENT_MAX).describe("The record text"),
    data: z.record(z.string(), z.unknown()).optional().describe("Optional structured fields as a JSON object"),
  }),
  async execute(args, ctx) {
    const input = args.data === undefined ? { kind: args.kind, content: args.content } : { ...args };
    const record = await ctx.store.recordCreate(ctx.agentId, ctx.runId, input);
    return {
      content: JSON.stringify({ id: record.id, kind: record.kind, created_at: record.createdAt.toISOString() }),
      metadata: { path: `records/${record.id}` },
    };
  },
};

/**
 * Lists records, newest first.
 *
 * @example record_list({ since: "2026-01-01T00:00:00Z", limit: 10 }) // '{"count":1,"records":[{…}]}'
 */
export const recordList: ToolDefinition<{ since?: string | null; limit: number }> = {
  name: "record_list",
  description: "List records, newest first. Use since to see only records created after a time.",
  binding: "record",
  parameters: z.strictObject({
    since,
    limit: z
      .number()
      .int()
      .min(1)
      .max(RECORD_LIST_MAX)
      .default(RECORD_LIST_DEFAULT)
      .describe(`How many records to return, 1-${RECORD_LIST_MAX} (default ${RECORD_LIST_DEFAULT})`),
  }),
  async execute(args, ctx) {
    const sinceDate = args.since == null ? undefined : new Date(args.since);
    const records = await ctx.store.recordList(ctx.agentId, sinceDate ? { since: sinceDate, limit: args.limit } : { limit: args.limit });
    const range = `${sinceDate ? `since=${sinceDate.toISOString()} ` : ""}limit=${args.limit}`;
    return {
      content: JSON.stringify({ count: records.length, records: records.map(recordJson) }),
      metadata: { path: "records", range },
    };
  },
};

/** A record as tools show it: the wire's snake_case names. */
export function recordJson(record: AgentRecord): Record<string, unknown> {
  return {
    id: record.id,
    kind: record.kind,
    content: record.content,
    data: record.data ?? null,
    run_id: record.runId,
    created_at: record.createdAt.toISOString(),
  };
}

/** The `record` binding's tools, in the order they are offered. */
export const RECORD_TOOLS = [recordCreate, recordList] as const;
