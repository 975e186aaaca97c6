/**
 * What-if replay: one recorded model call sent again with changed settings. This module
 * turns the recorded call (the replayed prompt, the run's tools and model settings) and one
 * variant's settings into the call the variant makes. Pure: the agent object resolves the
 * provider, opens the key and calls the model.
 */
import type { ChatPayload } from "../projection/types";
import type { OfferedTool, RunSnapshot } from "../runs/snapshot";

/** How long one variant's model call may take before it is stopped and recorded as failed. */
export const VARIANT_TIMEOUT_MS = 120_000;

/** What a variant changes; a field left out keeps the recorded call's value. */
export interface VariantSettings {
  model?: string;
  /** null: the platform's provider. */
  base_url?: string | null;
  /** The secret holding the key for base_url; null: none. */
  api_key_secret?: string | null;
  temperature?: number;
  thinking_level?: "off" | "low" | "medium" | "high";
  max_tokens?: number;
  /** Replaces the opening system prompt. */
  system_prompt?: string;
  /** Replaces the tool schemas offered. */
  tools?: OfferedTool[];
}

/** The call one variant makes. */
export interface VariantCall {
  model: string;
  base_url: string | null;
  api_key_secret: string | null;
  thinking_level: string;
  temperature: number | null;
  max_tokens: number | null;
  messages: ChatPayload[];
  tools: OfferedTool[];
}

/**
 * The recorded call with one variant's changes. A variant that names another base_url and
 * no api_key_secret gets none: the agent's own key is never sent to a URL typed for a
 * variant unless the operator names it again.
 *
 * @example variantCall({ model: snapshot.model, messages, tools }, { model: "gpt-4.1-mini", temperature: 0 }).model // "gpt-4.1-mini"
 */
export function variantCall(
  recorded: { model: RunSnapshot["model"]; messages: readonly ChatPayload[]; tools: readonly OfferedTool[] },
  settings: VariantSettings,
): VariantCall {
  const movesProvider = settings.base_url !== undefined && settings.base_url !== recorded.model.base_url;
  return {
    model: settings.model ?? recorded.model.model,
    base_url: settings.base_url === undefined ? recorded.model.base_url : settings.base_url,
    api_key_secret: settings.api_key_secret !== undefined ? settings.api_key_secret : movesProvider ? null : recorded.model.api_key_secret,
    thinking_level: settings.thinking_level ?? recorded.model.thinking_level,
    temperature: settings.temperature ?? null,
    max_tokens: settings.max_tokens ?? null,
    messages: settings.system_prompt === undefined ? [...recorded.messages] : withSystemPrompt(recorded.messages, settings.system_prompt),
    tools: settings.tools ? [...settings.tools] : [...recorded.tools],
  };
}

/**
 * The messages with the opening system prompt replaced (or one put first when there is none).
 *
 * @example withSystemPrompt([{ role: "system", content: "a" }, { role: "user", content: "q" }], "b")[0] // { role: "system", content: "b" }
 */
export function withSystemPrompt(messages: readonly ChatPayload[], prompt: string): ChatPayload[] {
  const at = messages.findIndex((m) => m.role === "system");
  if (at === -1) return [{ role: "system", content: prompt }, ...messages];
  return messages.map((m, i) => (i === at ? { role: "system", content: prompt } : m));
}

/**
 * Ids for a batch's variants that sort in the order asked (UUIDv7: the time, then the
 * variant's position in the 12 bits before the random part). The batch is inserted in one
 * statement, so its rows share created_at and newest-first lists tie-break on the id: with
 * these ids a batch reads back in its order (reversed), never shuffled.
 *
 * @example batchIds(2, Date.now()) // ["0190…-7000-…", "0190…-7001-…"], the first sorting first
 */
export function batchIds(count: number, nowMs: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    let time = nowMs;
    for (let b = 5; b >= 0; b--) {
      bytes[b] = time % 256;
      time = Math.floor(time / 256);
    }
    bytes[6] = 0x70 | ((i >> 8) & 0x0f);
    bytes[7] = i & 0xff;
    bytes[8] = 0x80 | (bytes[8]! & 0x3f);
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  });
}
