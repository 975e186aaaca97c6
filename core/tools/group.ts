import * as z from "zod";
import type { ToolDefinition } from "./types";

/** Longest public post, in characters (the operator's limit too). */
export const GROUP_POST_MAX = 8_000;

/**
 * Posts a public row to the guild's group chat (GROUP-015). `@Name` tags agents of the
 * guild; the post wakes the other agents unless the exchange is already deep enough
 * (core/group/wake.ts). Offered when the agent's group_post binding is on.
 *
 * @example group_post({ content: "@Scout the build is green" }) // "Posted to the group chat as seq 14."
 */
export const groupPost: ToolDefinition<{ content: string }> = {
  name: "group_post",
  description: "Post a public message to your guild's group chat. Everyone in the guild reads it; tag an agent with @Name. Your tool calls stay private.",
  binding: "group_post",
  parameters: z.strictObject({
    content: z.string().trim().min(1).max(GROUP_POST_MAX).describe("The message, as the group will read it"),
  }),
  async execute(args, ctx) {
    if (!ctx.group) throw new Error("group_post is not available in this run");
    const posted = await ctx.group.post(args.content);
    const tags = posted.tagged.length ? ` Tagged: ${posted.tagged.join(", ")}.` : "";
    return { content: `Posted to the group chat as seq ${posted.seq}.${tags}` };
  },
};

export const GROUP_TOOLS = [groupPost] as const;
