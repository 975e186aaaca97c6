/** Display helpers shared by the views; pure. */

/** USD from the API's decimal string: 4 decimals under a dollar, 2 above. */
export function usd(value: string | number | null | undefined): string {
  const n = Number(value ?? 0);
  if (!Number.isFinite(n)) return "–";
  if (n === 0) return "$0.00";
  return Math.abs(n) < 1 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`;
}

/** A token count with thousands separators. */
export const tokens = (n: number | null | undefined): string => (n ?? 0).toLocaleString("en-US");

/** A timestamp as local date and time, minutes precision. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "–";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });
}

/** History's kind label of a run (UI-003). */
export function kindLabel(kind: string): string {
  if (kind === "schedule") return "Schedule wake-up";
  if (kind === "group") return "Group chat";
  if (kind === "direct") return "Direct chat";
  if (kind === "task") return "Task";
  return kind;
}

/** Pretty JSON of a tool call's arguments string; the raw text when it is not JSON. */
export function prettyArguments(text: unknown): string {
  if (typeof text !== "string") return JSON.stringify(text, null, 2);
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The text of a message's content: a string, or the text parts of a content array. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: string; text?: string }) => (part?.type === "text" ? (part.text ?? "") : part?.type === "image_url" ? "[image]" : ""))
    .filter(Boolean)
    .join("\n");
}
