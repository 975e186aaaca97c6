import type { ChatPayload } from "./types";

/**
 * The prompt hash recorded on each assistant row and recomputed by the replay endpoint
 * (PROJ-010). Hash the projected messages before image hydration: hydrated URLs are
 * fresh on every request (ATT-008) and would make the hash unreproducible.
 */

/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace, undefined
 * members dropped and array order kept (the JSON.stringify rules otherwise, which is
 * RFC 8785 for the values we store). Stable across key insertion order.
 * @example canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    // Primitives: JSON.stringify gives the standard escaping and number form.
    return JSON.stringify(value) ?? "null";
  }
  if (Array.isArray(value)) {
    // As JSON.stringify does, holes and non-JSON members become null inside arrays.
    return `[${value.map((v) => (v === undefined || typeof v === "function" || typeof v === "symbol" ? "null" : canonicalJson(v))).join(",")}]`;
  }
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort()) {
    const v = obj[key];
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(",")}}`;
}

/**
 * Canonical JSON of each payload object, kept while the object lives. Stored payloads are
 * immutable and the projection hands the same objects back every step, so a step encodes
 * only its new rows instead of the whole history.
 */
const canonicalCache = new WeakMap<object, string>();

function canonicalOf(value: object): string {
  let text = canonicalCache.get(value);
  if (text === undefined) {
    text = canonicalJson(value);
    canonicalCache.set(value, text);
  }
  return text;
}

/**
 * Hex SHA-256 of canonicalJson({ model, messages, tools }), via WebCrypto (Workers and Node).
 * The document is assembled from per-message pieces (keys in sorted order: messages,
 * model, tools), which gives exactly canonicalJson's bytes.
 * @example await promptHash(plan.messages, snapshot.tools, snapshot.model) // "3f5a…" (64 hex chars)
 */
export async function promptHash(messages: readonly ChatPayload[], tools: readonly unknown[], model: string): Promise<string> {
  const document = `{"messages":[${messages.map(canonicalOf).join(",")}],"model":${JSON.stringify(model)},"tools":${canonicalOf(tools)}}`;
  const bytes = new TextEncoder().encode(document);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  let hex = "";
  for (const b of new Uint8Array(digest)) hex += b.toString(16).padStart(2, "0");
  return hex;
}
