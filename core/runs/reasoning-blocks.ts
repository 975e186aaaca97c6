/**
 * Provider reasoning blocks (RUN-016, GEN-028): the `reasoning_details` entries some
 * providers (OpenRouter among them) stream beside the text, kept as the provider sent them
 * in the assistant row's metadata and never sent back to the model.
 *
 * A block arrives in fragments that share its `index`: the first carries its fields
 * (type, id, format, …), later ones more of its `text`, `summary` or `data`, and often its
 * `signature` last. Fragments are joined per index; a fragment without an index is a whole block.
 */
export type ReasoningBlock = Record<string, unknown>;

const JOINED_FIELDS = ["text", "summary", "data"] as const;

/**
 * Adds one streamed fragment to the blocks so far.
 *
 * @example
 *   const blocks: ReasoningBlock[] = [];
 *   addReasoningFragment(blocks, { type: "reasoning.text", index: 0, text: "Let " });
 *   addReasoningFragment(blocks, { type: "reasoning.text", index: 0, text: "me", signature: "s1" });
 *   // blocks: [{ type: "reasoning.text", index: 0, text: "Let me", signature: "s1" }]
 */
export function addReasoningFragment(blocks: ReasoningBlock[], fragment: unknown): void {
  if (typeof fragment !== "object" || fragment === null || Array.isArray(fragment)) return;
  const piece = fragment as ReasoningBlock;
  const open = typeof piece.index === "number" ? blocks.find((b) => b.index === piece.index) : undefined;
  if (!open) {
    blocks.push({ ...piece });
    return;
  }
  for (const [key, value] of Object.entries(piece)) {
    if (value === null || value === undefined) continue;
    const joined = (JOINED_FIELDS as readonly string[]).includes(key) && typeof value === "string" && typeof open[key] === "string";
    open[key] = joined ? (open[key] as string) + value : value;
  }
}

/** The readable reasoning a fragment carries (its text or summary), for the live deltas. */
export function reasoningTextOf(fragment: unknown): string {
  if (typeof fragment !== "object" || fragment === null) return "";
  const { text, summary } = fragment as ReasoningBlock;
  return typeof text === "string" ? text : typeof summary === "string" ? summary : "";
}
