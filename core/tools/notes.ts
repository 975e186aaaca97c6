/**
 * The `note` binding (EXACT-011, OP-EXACT-3): note_write, note_read, note_list, note_delete.
 * Notes are small named texts an agent keeps across runs: its durable findings.
 * Reads set `metadata.path = notes/<title>` so a stubbed result can name what to re-read.
 */
import * as z from "zod";
import type { ToolDefinition } from "./types";

/** Longest note title; titles are one line, as they are listed in State. */
export const NOTE_TITLE_MAX = 200;
/** Longest note body, in characters. */
export const NOTE_BODY_MAX = 65_536;

const title = z
  .string()
  .trim()
  .min(1)
  .max(NOTE_TITLE_MAX)
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must be one line without control characters")
  .describe('Note title, unique per agent, e.g. "customer-acme"');

/** Path naming a note in result metadata and projection stubs. */
export function notePath(noteTitle: string): string {
  return `notes/${noteTitle}`;
}

/**
 * Creates or replaces a note.
 *
 * @example note_write({ title: "plan", body: "1. read" }) // "Saved note \"plan\" (created, 7 bytes)."
 */
export const noteWrite: ToolDefinition<{ title: string; body: string }> = {
  name: "note_write",
  description: "Create or replace a note. Notes persist across runs: keep durable findings here.",
  binding: "note",
  parameters: z.strictObject({
    title,
    body: z.string().max(NOTE_BODY_MAX).describe("The whole note text; it replaces any previous body"),
  }),
  async execute(args, ctx) {
    const { created } = await ctx.store.noteWrite(ctx.agentId, args.title, args.body);
    const bytes = new TextEncoder().encode(args.body).length;
    return {
      content: `Saved note ${JSON.stringify(args.title)} (${created ? "created" : "replaced"}, ${bytes} bytes).`,
      metadata: { path: notePath(args.title) },
    };
  },
};

/**
 * Reads one note's body.
 *
 * @example note_read({ title: "plan" }) // { content: "1. read", metadata: { path: "notes/plan" } }
 */
export const noteRead: ToolDefinition<{ title: string }> = {
  name: "note_read",
  description: "Read a note's full text by title.",
  binding: "note",
  parameters: z.strictObject({ title }),
  async execute(args, ctx) {
    const note = await ctx.store.noteRead(ctx.agentId, args.title);
    if (note === null) return { content: `ERROR: no note titled ${JSON.stringify(args.title)}; note_list shows the titles` };
    return { content: note.body.length > 0 ? note.body : "(empty note)", metadata: { path: notePath(note.title) } };
  },
};

/**
 * Lists note titles with their last update.
 *
 * @example note_list({}) // '{"count":1,"notes":[{"title":"plan","updated_at":"2026-01-01T00:00:00.000Z"}]}'
 */
export const noteList: ToolDefinition<Record<string, never>> = {
  name: "note_list",
  description: "List the titles of all notes, with when each was last updated.",
  binding: "note",
  parameters: z.strictObject({}),
  async execute(_args, ctx) {
    const notes = await ctx.store.noteList(ctx.agentId);
    const rows = notes.map((n) => ({ title: n.title, updated_at: n.updatedAt.toISOString() }));
    return { content: JSON.stringify({ count: rows.length, notes: rows }), metadata: { path: "notes" } };
  },
};

/**
 * Deletes a note.
 *
 * @example note_delete({ title: "plan" }) // "Deleted note \"plan\"."
 */
export const noteDelete: ToolDefinition<{ title: string }> = {
  name: "note_delete",
  description: "Delete a note by title.",
  binding: "note",
  parameters: z.strictObject({ title }),
  async execute(args, ctx) {
    const deleted = await ctx.store.noteDelete(ctx.agentId, args.title);
    return {
      content: deleted ? `Deleted note ${JSON.stringify(args.title)}.` : `ERROR: no note titled ${JSON.stringify(args.title)}; note_list shows the titles`,
    };
  },
};

/** The `note` binding's tools, in the order they are offered. */
export const NOTE_TOOLS = [noteWrite, noteRead, noteList, noteDelete] as const;
