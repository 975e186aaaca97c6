import * as z from "zod";

/** A message an operator sends: text, and optionally uploaded images by id. */
const message = {
  content: z.string().max(200_000),
  attachments: z.array(z.uuid()).max(8).default([]),
};

const requireTextOrImages = (body: { content: string; attachments: string[] }) =>
  body.content.trim().length > 0 || body.attachments.length > 0;

/**
 * Body of `POST /api/runs/:id/messages`. An empty caption is allowed with images
 * (ATT-003); empty content without images is refused (OP-ATT-6).
 */
export const MessageCreate = z
  .strictObject(message)
  .refine(requireTextOrImages, { path: ["content"], message: "content is empty and no image is attached" });

/** Body of `POST /api/agents/:id/runs`: without a message the run stays idle (RUN-003). */
export const RunCreate = z
  .strictObject({ message: message.content.optional(), attachments: message.attachments, title: z.string().trim().min(1).max(200).optional() })
  .refine((b) => b.message === undefined ? b.attachments.length === 0 : requireTextOrImages({ content: b.message, attachments: b.attachments }), {
    path: ["message"],
    message: "message is empty and no image is attached",
  });

export const RunKindFilter = z.enum(["direct", "group", "schedule"]);

/** A run as the API returns it (RUN-023). */
export const Run = z.object({
  id: z.uuid(),
  agent_id: z.uuid(),
  kind: RunKindFilter,
  status: z.enum(["active", "completed"]),
  label: z.string(),
  title: z.string().nullable(),
  generation: z.int(),
  generating: z.boolean().optional(),
  cost_usd: z.string(),
  schedule_id: z.uuid().nullable(),
  instruction_hash: z.string().optional(),
  chain: z.unknown().optional(),
  continued_by_run_id: z.uuid().optional(),
  errors: z.array(z.object({ code: z.string(), message: z.string() }).passthrough()),
  metadata: z.record(z.string(), z.unknown()),
  snapshot: z.object({
    model: z.record(z.string(), z.unknown()),
    flags: z.record(z.string(), z.boolean()),
    tools: z.array(z.string()),
    secrets: z.array(z.object({ id: z.uuid(), name: z.string(), description: z.string() })),
  }).optional(),
  archived: z.boolean(),
  archived_at: z.iso.datetime().nullable(),
  completed_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

export const Message = z.object({
  seq: z.int(),
  generation: z.int().nullable(),
  role: z.enum(["system", "user", "assistant", "tool"]),
  payload: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()),
  cost_usd: z.string().nullable(),
  created_at: z.iso.datetime(),
});
