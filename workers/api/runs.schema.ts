import * as z from "zod";
import { Message, MessagePayload } from "../../core/events/message";
import { idInput } from "../../core/validation/fields";
import { ListQuery, pageOf } from "../http/page.schema";
import { MAX_SEQ, queryInt } from "../http/query.schema";
import { RepoChange } from "./run-changes.schema";

/** A message an operator sends: text, and optionally uploaded images by id. */
const message = {
  content: z.string().max(200_000),
  attachments: z.array(idInput()).max(8).default([]),
};

const requireTextOrImages = (body: { content: string; attachments: string[] }) => body.content.trim().length > 0 || body.attachments.length > 0;

/**
 * Body of `POST /api/runs/:id/messages`. An empty caption is allowed with images
 * (ATT-003); empty content without images is refused (OP-ATT-6).
 */
export const MessageCreate = z
  .strictObject(message)
  .refine(requireTextOrImages, { path: ["content"], message: "content is empty and no image is attached" })
  .meta({ id: "MessageCreate" });

/** Body of `POST /api/agents/:id/runs`: without a message the run stays idle (RUN-003). */
export const RunCreate = z
  .strictObject({ message: message.content.optional(), attachments: message.attachments, title: z.string().trim().min(1).max(200).optional() })
  .refine((b) => (b.message === undefined ? b.attachments.length === 0 : requireTextOrImages({ content: b.message, attachments: b.attachments })), {
    path: ["message"],
    message: "message is empty and no image is attached",
  })
  .meta({ id: "RunCreate" });

export const RunKindFilter = z.enum(["direct", "group", "schedule"]).meta({ id: "RunKind" });

/** A run's status: active (it takes messages) or completed (until resumed). */
export const RunStatus = z.enum(["active", "completed"]);

/** A continuation's place in its chain (CHAIN-009): the root run, index from 2, the run it continues. */
const ChainLink = z.object({ root_run_id: z.uuid(), index: z.int().min(2), previous_run_id: z.uuid() });

/**
 * What the platform records on a run. The fields below are the ones it writes (each on the
 * runs it names); open for more, as a trigger or a later version may add its own.
 */
export const RunMetadata = z
  .looseObject({
    instruction_hash: z.string().optional().describe("Schedule runs: the hash of the routine's instruction"),
    chain: ChainLink.optional(),
    continued_by_run_id: z.uuid().optional(),
    resumed_at: z.string().optional().describe("When the run was last resumed"),
    memory_skipped: z.boolean().optional(),
    group_chat_through_seq: z.int().optional().describe("Group runs: the delivery reads the chat through this seq"),
    group_chat_after_seq: z.int().optional().describe("Group runs: the delivery reads the chat after this seq"),
    group_depth: z.int().optional(),
    group_chat_history: z.looseObject({ source: z.string(), seqs: z.array(z.int()), reason: z.string().optional() }).optional(),
    task_id: z.uuid().optional(),
    task_run_id: z.uuid().optional(),
  })
  .meta({ id: "RunMetadata" });

/** A run as the API returns it (RUN-023). */
export const Run = z
  .object({
    id: z.uuid(),
    agent_id: z.uuid(),
    kind: RunKindFilter,
    status: RunStatus,
    label: z.string(),
    title: z.string().nullable(),
    generation: z.int(),
    generating: z.boolean().optional(),
    cost_usd: z.string(),
    schedule_id: z.uuid().nullable(),
    instruction_hash: z.string().optional(),
    chain: ChainLink.optional(),
    continued_by_run_id: z.uuid().optional(),
    /** A coding run's checkpoints (REPO-019): metadata.repos. */
    repos: z.array(RepoChange).optional(),
    errors: z.array(z.object({ code: z.string(), message: z.string() }).passthrough()),
    metadata: RunMetadata,
    snapshot: z
      .object({
        model: z.record(z.string(), z.unknown()),
        flags: z.record(z.string(), z.boolean()),
        tools: z.array(z.string()),
        secrets: z.array(z.object({ id: z.uuid(), name: z.string(), description: z.string() })),
        /** The scripts the run executes (SCRIPT-020), without their sources: GET /api/agents/:id/scripts has those. */
        scripts: z.array(
          z.object({
            id: z.uuid(),
            name: z.string(),
            description: z.string(),
            parameters: z.record(z.string(), z.unknown()).nullable(),
            source_hash: z.string(),
          }),
        ),
        /** The MCP tools the run offers, by connection (EXACT-023): what its calls are dispatched by. */
        mcp: z.array(
          z.object({
            connection_id: z.uuid(),
            server_id: z.string(),
            slug: z.string(),
            tools: z.array(
              z.object({
                name: z.string(),
                remote_name: z.string(),
                output_schema: z
                  .record(z.string(), z.unknown())
                  .optional()
                  .describe("The tool's output schema at the run's creation; each call's structured result must match it"),
              }),
            ),
          }),
        ),
        harness: z
          .object({
            kind: z.string().describe("platform: the platform's own loop; claude-code: Claude Code in the task's box"),
            version: z.string().describe('The Claude Code version, or "platform"'),
            settings: z.record(z.string(), z.unknown()).describe("The harness's settings as the run took them (none for the platform)"),
          })
          .optional()
          .describe("What generated the run: coding agents' runs only, and none stored before it was recorded"),
      })
      .optional(),
    archived: z.boolean(),
    archived_at: z.iso.datetime().nullable(),
    completed_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Run" });

export const RunPage = pageOf(Run, "RunPage");

/** Query of a run history: a page, by kind and archival. */
export const ScheduleRunListQuery = ListQuery.extend({
  kind: RunKindFilter.optional(),
  archived: z.enum(["true", "false"]).optional().describe("true: archived runs only; false: the others"),
  status: RunStatus.optional().describe("Only the runs in this status"),
  q: z.string().trim().max(200).optional().describe("Only the runs whose title contains this text (case-insensitive; % and _ match themselves)"),
});

/** Query of `GET /api/agents/:id/runs`: also by the routine that fired them. */
export const RunListQuery = ScheduleRunListQuery.extend({ schedule_id: idInput().optional().describe("Only the runs this routine fired") });

export { Message };

/** A run's rows in seq order (`GET /api/runs/:id/messages`). */
export const MessageList = z.object({ data: z.array(Message) }).meta({ id: "MessageList" });

/** Query of `GET /api/runs/:id/messages`. */
export const MessagesQuery = z.strictObject({
  after_seq: queryInt(-1, MAX_SEQ, -1).describe("Rows after this seq (default -1: from the start)"),
  limit: queryInt(1, 1000, 500).describe("At most this many rows (default 500)"),
});

/** The answer of `POST /api/runs/:id/messages`: the user row and the generation it opened. */
export const MessageAccepted = z.object({ run_id: z.uuid(), seq: z.int(), generation: z.int() }).meta({ id: "MessageAccepted" });

/** A tool as the run offered it to the model (its snapshot's Chat Completions `tools[]` entry). */
export const OfferedTool = z
  .object({
    type: z.literal("function"),
    function: z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()).describe("The tool's JSON Schema") }),
  })
  .meta({ id: "OfferedTool" });

/** The exact projection sent for an assistant row, rebuilt from stored rows (`GET /api/runs/:id/messages/:seq/prompt`). */
export const PromptReplay = z
  .object({
    seq: z.int(),
    model: z.string(),
    messages: z.array(MessagePayload).describe("The messages sent, in order: the stored payloads as the projection gave them (images as stored references)"),
    tools: z.array(OfferedTool),
    hash: z.string(),
    recorded_hash: z.string().nullable().describe("The hash recorded when the row was generated; null for rows from before hashes were kept"),
    matches: z.boolean(),
    request: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .describe(
        "A harness's call (Claude Code's, through the model gateway): the exact request sent to the provider, redacted; messages and tools are then empty. Null when it was not kept",
      ),
  })
  .meta({ id: "PromptReplay" });
