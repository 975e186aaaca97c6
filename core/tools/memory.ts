import * as z from "zod";
import type { ToolDefinition } from "./types";

/** Longest Memory document, in characters: it opens every run's system prompt. */
export const MEMORY_MAX = 20_000;

/** The tool a group or schedule run with Memory on must call once (GROUP-006, SCHED-020). */
export const MEMORY_WRITE = "memory_write";

/**
 * Replaces the agent's Memory: the durable document shown as the opening <memory> of
 * every later run (RUN-013). Offered only when the agent's memory flag is on (EXACT-012).
 *
 * @example memory_write({ content: "- The operator prefers short answers." }) // "Memory saved (37 characters)."
 */
export const memoryWrite: ToolDefinition<{ content: string }> = {
  name: MEMORY_WRITE,
  description:
    "Replace your Memory, the document every later run of yours starts with. Write the whole document: what you must remember across runs, concisely.",
  binding: "memory",
  parameters: z.strictObject({ content: z.string().max(MEMORY_MAX).describe("The whole Memory document; it replaces the previous one") }),
  async execute(args, ctx) {
    if (!ctx.memory) throw new Error("Memory is off for this agent");
    await ctx.memory.write(args.content);
    return { content: `Memory saved (${args.content.length} characters). It opens your next runs.`, metadata: { path: "memory" } };
  },
};

export const MEMORY_TOOLS = [memoryWrite] as const;

/** The user row a group or schedule generation gets when it returned without memory_write (GROUP-006). */
export const MEMORY_REMINDER =
  "Reminder: this wake-up must end with memory_write. Call memory_write once with your whole updated Memory, then finish with a short text reply.";
