import { MAX_VARIANTS_PER_REQUEST } from "../../../core/shared/variant-limit";

/** One variant as the "What if…" form holds it: text fields, blank for "as recorded". */
export interface VariantDraft {
  model: string;
  temperature: string;
  thinking_level: "" | "off" | "low" | "medium" | "high";
  max_tokens: string;
  system_prompt: string;
}

/** What a variant may change, as the API takes it. */
export interface VariantBody {
  model?: string;
  temperature?: number;
  thinking_level?: "off" | "low" | "medium" | "high";
  max_tokens?: number;
  system_prompt?: string;
}

export { MAX_VARIANTS_PER_REQUEST };

/** A new draft: every field as recorded, the system prompt shown for editing. */
export const emptyDraft = (systemPrompt: string): VariantDraft => ({
  model: "",
  temperature: "",
  thinking_level: "",
  max_tokens: "",
  system_prompt: systemPrompt,
});

/**
 * The request body of the drafts, or the first field the console refuses before sending
 * (the API checks again). Blank fields and an unchanged system prompt keep the recorded call's.
 *
 * @example variantBodies([{ ...emptyDraft("S"), temperature: "0.5" }], "S") // { ok: true, variants: [{ temperature: 0.5 }] }
 */
export function variantBodies(drafts: VariantDraft[], recordedSystemPrompt: string): { ok: true; variants: VariantBody[] } | { ok: false; error: string } {
  if (drafts.length === 0) return { ok: false, error: "Add a variant first" };
  if (drafts.length > MAX_VARIANTS_PER_REQUEST) return { ok: false, error: `At most ${MAX_VARIANTS_PER_REQUEST} variants at once` };
  const variants: VariantBody[] = [];
  for (const [i, d] of drafts.entries()) {
    const body: VariantBody = {};
    const name = `Variant ${i + 1}`;
    if (d.model.trim()) body.model = d.model.trim();
    if (d.temperature.trim()) {
      const t = Number(d.temperature);
      if (!Number.isFinite(t) || t < 0 || t > 2) return { ok: false, error: `${name}: temperature must be a number from 0 to 2` };
      body.temperature = t;
    }
    if (d.thinking_level) body.thinking_level = d.thinking_level;
    if (d.max_tokens.trim()) {
      const n = Number(d.max_tokens);
      if (!Number.isInteger(n) || n < 1 || n > 1_000_000) return { ok: false, error: `${name}: max tokens must be a whole number from 1 to 1000000` };
      body.max_tokens = n;
    }
    if (d.system_prompt !== recordedSystemPrompt) body.system_prompt = d.system_prompt;
    variants.push(body);
  }
  return { ok: true, variants };
}

/**
 * What a variant changed, in a few words for its column's heading.
 *
 * @example settingsLabel({ model: "m", temperature: 0 }) // "m · temperature 0"
 */
export function settingsLabel(settings: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof settings.model === "string") parts.push(settings.model);
  if (typeof settings.temperature === "number") parts.push(`temperature ${settings.temperature}`);
  if (typeof settings.thinking_level === "string") parts.push(`thinking ${settings.thinking_level}`);
  if (typeof settings.max_tokens === "number") parts.push(`max ${settings.max_tokens} tokens`);
  if (typeof settings.system_prompt === "string") parts.push("system prompt changed");
  if (Array.isArray(settings.tools)) parts.push("tools changed");
  if (settings.base_url !== undefined) parts.push(`provider ${settings.base_url ?? "platform"}`);
  return parts.join(" · ") || "as recorded";
}
