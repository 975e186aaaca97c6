import { sha256Hex } from "../bytes/sha256";
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
 * SHA-256 of each payload's canonical JSON, kept while the object lives. Stored payloads
 * are immutable and the projection hands the same objects back every step, so a step
 * hashes only its new rows instead of re-serialising and re-hashing the whole history.
 */
const digestCache = new WeakMap<object, Promise<string>>();

function digestOf(value: object): Promise<string> {
  let digest = digestCache.get(value);
  if (digest === undefined) {
    digest = sha256Hex(canonicalJson(value));
    digestCache.set(value, digest);
  }
  return digest;
}

/**
 * The tools' digest, known again by their JSON: each run's snapshot holds a new array of the
 * same tools, which the per-object cache cannot recognise, and canonicalising them (tens of
 * kilobytes of schemas) cost every run's first call more than the rest of its hash. Equal
 * JSON of plain data means equal canonical JSON, so the digest is the same.
 */
function toolsDigestOf(tools: readonly unknown[]): Promise<string> {
  let digest = digestCache.get(tools);
  if (digest !== undefined) return digest;
  const json = JSON.stringify(tools);
  digest = toolsDigests.get(json);
  if (digest === undefined) {
    digest = sha256Hex(canonicalJson(tools));
    if (toolsDigests.size >= TOOLS_DIGESTS_MAX) toolsDigests.clear();
    toolsDigests.set(json, digest);
  }
  digestCache.set(tools, digest);
  return digest;
}

const toolsDigests = new Map<string, Promise<string>>();
/** Distinct tool sets kept per isolate: an agent's flags make a handful. */
const TOOLS_DIGESTS_MAX = 32;

/** Names the hash construction, so a later change of it cannot collide with this one. */
export const PROMPT_HASH_VERSION = "prompt-hash-v1";

/**
 * The hash of one model request, recorded on its assistant row and recomputed by the
 * replay endpoint: hex SHA-256 of the lines `prompt-hash-v1`, the model as JSON, the
 * SHA-256 of the tools' canonical JSON, then the SHA-256 of each message's canonical JSON
 * in order. Any change to the model, a tool schema, a message or their order changes it;
 * per-message digests are cached, so a step costs the new rows, not the history.
 * @example await promptHash(plan.messages, snapshot.tools, snapshot.model) // "3f5a…" (64 hex chars)
 */
export async function promptHash(messages: readonly ChatPayload[], tools: readonly unknown[], model: string): Promise<string> {
  const [toolsDigest, ...messageDigests] = await Promise.all([toolsDigestOf(tools), ...messages.map(digestOf)]);
  return sha256Hex([PROMPT_HASH_VERSION, JSON.stringify(model), toolsDigest, ...messageDigests].join("\n"));
}
