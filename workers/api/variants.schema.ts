import * as z from "zod";
import { MAX_VARIANTS_PER_REQUEST } from "../../core/shared/variant-limit";
import { envName } from "../../core/validation/fields";
import { pageOf } from "../http/page.schema";
import { THINKING_LEVELS } from "./agents.schema";

/** A tool schema as a variant offers it: the Chat Completions `tools[]` entry. */
export const VariantTool = z
  .strictObject({
    type: z.literal("function"),
    function: z.strictObject({
      name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1-64 characters of A-Z, a-z, 0-9, _ and -"),
      description: z.string().max(8_000).default(""),
      parameters: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }),
    }),
  })
  .meta({ id: "VariantTool" });

/** What one variant changes from the recorded call; a field left out keeps the recorded value. */
export const VariantSettings = z
  .strictObject({
    model: z.string().trim().min(1).max(200).optional(),
    // Checked against the egress rules by the route and again before the call.
    base_url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .nullable()
      .optional()
      .describe("Another OpenAI-compatible provider; null: the platform's. Any other needs api_key_secret (the agent's own key is not reused for it)."),
    api_key_secret: envName.nullable().optional().describe("Name of the secret (granted to the agent) holding the key for base_url"),
    temperature: z.number().min(0).max(2).optional(),
    thinking_level: z.enum(THINKING_LEVELS).optional(),
    max_tokens: z.int().min(1).max(1_000_000).optional(),
    system_prompt: z.string().max(200_000).optional().describe("Replaces the opening system prompt"),
    tools: z.array(VariantTool).max(128).optional().describe("Replaces the tool schemas offered; tools are never run"),
  })
  .meta({ id: "VariantSettings" });

/** Body of `POST /api/runs/:id/messages/:seq/variants`. */
export const VariantCreate = z
  .strictObject({
    variants: z
      .array(VariantSettings)
      .min(1)
      .max(MAX_VARIANTS_PER_REQUEST)
      .describe(`The variants to run side by side, at most ${MAX_VARIANTS_PER_REQUEST} per request`),
  })
  .meta({ id: "VariantCreate" });

const toolCall = z.object({ id: z.string(), type: z.literal("function"), function: z.object({ name: z.string(), arguments: z.string() }) });

/** One variant: its settings, status, answer (redacted) or error, usage, cost and latency. */
export const Variant = z
  .object({
    id: z.uuid(),
    run_id: z.uuid(),
    message_seq: z.int(),
    batch_id: z.uuid().describe("Variants asked for in one request share a batch"),
    requested_by: z.uuid().nullable().describe("The API token that asked; null when it is gone"),
    settings: z.record(z.string(), z.unknown()).describe("What the variant changed (VariantSettings)"),
    status: z.enum(["pending", "completed", "failed"]),
    answer: z
      .object({
        content: z.string().nullable(),
        reasoning: z.string().nullable(),
        tool_calls: z.array(toolCall).describe("Asked for, never run"),
        finish_reason: z.string().nullable(),
        model: z.string().nullable(),
      })
      .nullable()
      .describe("The model's answer, redacted as stored replies are; null until completed"),
    error: z.object({ code: z.string(), message: z.string(), http_status: z.int().nullable().optional() }).nullable(),
    input_tokens: z.int(),
    output_tokens: z.int(),
    cached_input_tokens: z.int(),
    reasoning_tokens: z.int(),
    cost_usd: z.string(),
    latency_ms: z.int().nullable(),
    prompt_hash: z.string().nullable().describe("sha256 of the request sent, as an assistant row's projection hash is"),
    created_at: z.iso.datetime(),
    completed_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "Variant" });

/** The answer of `POST /api/runs/:id/messages/:seq/variants`: the batch, each variant run to its end. */
export const VariantBatch = z.object({ batch_id: z.uuid(), data: z.array(Variant) }).meta({ id: "VariantBatch" });

export const VariantPage = pageOf(Variant, "VariantPage");
