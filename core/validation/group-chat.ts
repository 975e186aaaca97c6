import * as z from "zod";

/** A public row as the API returns it. */
export const GroupMessage = z
  .object({
    seq: z.int(),
    guild_id: z.uuid(),
    author_kind: z.enum(["operator", "agent"]),
    author_agent_id: z.uuid().nullable(),
    author_name: z.string(),
    content: z.string(),
    tagged: z.array(z.uuid()),
    depth: z.int(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "GroupMessage" });
