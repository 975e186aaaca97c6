import * as z from "zod";
import type { ChatPayload, ToolCall as ToolCallShape } from "../projection/types";

/**
 * A stored row of a run's transcript as the API and the event streams send it: the
 * Chat Completions payload, a union by role (what the model was sent and answered,
 * immutable), and the row's metadata (never sent to the model).
 */

/** One function call the assistant asked for (Chat Completions shape). */
export const ToolCall = z
  .object({
    id: z.string(),
    type: z.literal("function"),
    function: z.object({ name: z.string(), arguments: z.string().describe("The arguments as the model wrote them: JSON text, not parsed") }),
  })
  .meta({ id: "ToolCall" });

export const SystemPayload = z.object({ role: z.literal("system"), content: z.string() }).meta({ id: "SystemPayload", description: "The run's system prompt" });

export const UserPayload = z.object({ role: z.literal("user"), content: z.string() }).meta({
  id: "UserPayload",
  description: "A user message: the operator's, a trigger's (metadata.source) or the platform's; images are named in metadata.attachments",
});

export const AssistantPayload = z
  .object({ role: z.literal("assistant"), content: z.string().nullable(), tool_calls: z.array(ToolCall).optional() })
  .meta({ id: "AssistantPayload", description: "A model reply: its text (null with tool calls only) and the tools it called" });

export const ToolPayload = z
  .object({ role: z.literal("tool"), tool_call_id: z.string(), content: z.string() })
  .meta({ id: "ToolPayload", description: "A tool's result, for the call tool_call_id names" });

/** A row's payload, by role: the message exactly as it goes to the model. */
export const MessagePayload = z
  .discriminatedUnion("role", [SystemPayload, UserPayload, AssistantPayload, ToolPayload])
  .meta({ id: "MessagePayload", description: "The Chat Completions message of a row; its role is the row's role" });

/** Tokens of one model call as the provider reported them. */
export const AssistantUsage = z
  .looseObject({
    prompt_tokens: z.number(),
    completion_tokens: z.number(),
    cached_tokens: z.number().optional(),
    reasoning_tokens: z.number().optional(),
    cost: z.number().optional().describe("The provider's own price of the call, when it reports one"),
  })
  .meta({ id: "AssistantUsage" });

/** An image or file a row references: an operator's upload or a tool's screenshot (ATT-001). */
export const AttachmentRef = z
  .looseObject({
    id: z.string(),
    filename: z.string(),
    mime: z.string().optional(),
    kind: z.string().optional().describe("image: shown and sent to the model"),
  })
  .meta({ id: "AttachmentRef" });

/** What the projection of an assistant row's prompt did (PROJ-002), and its hash. */
export const ProjectionFacts = z
  .looseObject({
    policy_version: z.number().optional(),
    keep: z.number().optional(),
    pressure_stubbed: z.array(z.int()).optional().describe("Tool rows sent as a stub in this prompt under context pressure"),
    prompt_tokens_counted: z.number().optional(),
    hash: z.string().optional(),
  })
  .meta({ id: "ProjectionFacts" });

/**
 * A row's metadata. The fields below are the ones the platform writes (each on the rows
 * it names); a tool may add its own (script runs, searches), hence open for more.
 */
export const MessageMetadata = z
  .looseObject({
    source: z.string().optional().describe("Where the row came from: model, operator, group, schedule, handoff, interruption, task_message, …"),
    // Assistant rows.
    model: z.string().optional().describe("Assistant rows: the model that answered"),
    usage: AssistantUsage.optional(),
    cost_usd: z.number().optional().describe("Assistant rows: the call's price in USD (the row's cost_usd, as a number)"),
    priced: z.boolean().optional(),
    price_source: z.string().optional(),
    latency_ms: z.number().nullable().optional(),
    first_token_ms: z.number().nullable().optional(),
    finish_reason: z.string().nullable().optional(),
    reasoning: z.string().optional().describe("Assistant rows: the model's reasoning text, when it sent any"),
    reasoning_blocks: z.array(z.unknown()).optional(),
    timings: z.record(z.string(), z.number()).optional(),
    projection: ProjectionFacts.optional(),
    // Tool rows.
    tool_name: z.string().optional().describe("Tool rows: the tool that answered"),
    tool_call_id: z.string().optional(),
    duration_ms: z.number().optional(),
    path: z.string().optional(),
    range: z.string().optional(),
    secret_request: z.looseObject({ name: z.string(), description: z.string().optional(), reason: z.string().optional() }).optional(),
    // User and tool rows.
    attachments: z.array(AttachmentRef).optional(),
    group_chat_through_seq: z.int().optional().describe("A group wake: the chat rows it delivered end at this seq"),
  })
  .meta({ id: "MessageMetadata" });

export const Message = z
  .object({
    seq: z.int(),
    generation: z.int().nullable(),
    role: z.enum(["system", "user", "assistant", "tool"]),
    payload: MessagePayload,
    metadata: MessageMetadata,
    cost_usd: z.string().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Message", description: "One stored row of a run's transcript" });

/** A row as the API and the streams send it. */
export type MessageWire = z.output<typeof Message>;

/** Type-level proof that the schema and the loop's own payload type are one shape. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const payloadMatches: Same<z.output<typeof MessagePayload>, ChatPayload> = true;
const toolCallMatches: Same<z.output<typeof ToolCall>, ToolCallShape> = true;
void payloadMatches;
void toolCallMatches;
