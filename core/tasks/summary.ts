/**
 * The continuation summary a later run of a task starts from (TASK-033): what the task is
 * and what happened in its earlier runs, one line per event, capped at 16 KiB. Pure: the
 * task object reads the earlier transcripts and hands their rows here.
 *
 * @example
 *   continuationSummary({ title: "Fix login", description: "", rows: [{ role: "user", payload: { role: "user", content: "go" } }] })
 *   // "Task: Fix login\n\nEarlier runs:\nUser: go"
 */

/** The summary never passes this many bytes (UTF-8). */
export const SUMMARY_CAP_BYTES = 16 * 1024;
/** One transcript line is cut at this many characters, so no single event crowds out the rest. */
const LINE_CHARS = 2_000;

export interface SummaryRow {
  role: string;
  payload: unknown;
  metadata?: Record<string, unknown>;
}

export interface SummaryInput {
  title: string;
  description: string;
  /** The earlier runs' rows, oldest first (system rows and the task prompt are skipped). */
  rows: readonly SummaryRow[];
}

const bytes = (text: string) => new TextEncoder().encode(text).byteLength;
const oneLine = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= LINE_CHARS ? flat : `${flat.slice(0, LINE_CHARS - 1)}…`;
};

/** The lines a row contributes: a user message, an agent message, one per tool call. */
export function summaryLines(row: SummaryRow): string[] {
  const payload = (row.payload ?? {}) as { content?: unknown; tool_calls?: Array<{ function?: { name?: string; arguments?: string } }> };
  const source = row.metadata?.source;
  if (row.role === "user") {
    // The platform's own rows (the task prompt, hand-off requests) are not what a person said.
    if (source === "task_prompt" || source === "handoff" || source === "memory_reminder") return [];
    return typeof payload.content === "string" && payload.content.trim() ? [`User: ${oneLine(payload.content)}`] : [];
  }
  if (row.role !== "assistant") return [];
  const lines: string[] = [];
  if (typeof payload.content === "string" && payload.content.trim()) lines.push(`Agent: ${oneLine(payload.content)}`);
  for (const call of payload.tool_calls ?? []) {
    const name = call.function?.name ?? "tool";
    lines.push(oneLine(`Tool: ${name} ${call.function?.arguments ?? ""}`));
  }
  return lines;
}

/**
 * The summary text: the title and description first, then the transcript's lines. When it
 * would pass the cap, the oldest lines go first (the latest state matters most) and a line
 * says how many were left out; a description alone past the cap is cut.
 */
export function continuationSummary(input: SummaryInput): string {
  const head = [`Task: ${oneLine(input.title)}`, ...(input.description.trim() ? [`Description: ${input.description.trim()}`] : [])].join("\n");
  const lines = input.rows.flatMap(summaryLines);
  const intro = "\n\nEarlier runs:";
  let headText = head;
  if (bytes(headText) > SUMMARY_CAP_BYTES / 2) headText = cutToBytes(headText, SUMMARY_CAP_BYTES / 2);
  if (!lines.length) return headText;
  let budget = SUMMARY_CAP_BYTES - bytes(headText) - bytes(intro);
  const kept: string[] = [];
  // From the newest back; room is kept for the line that counts the omitted ones.
  const omittedRoom = 64;
  for (let i = lines.length - 1; i >= 0; i--) {
    const cost = bytes(lines[i]!) + 1;
    if (cost > budget - (i > 0 ? omittedRoom : 0)) {
      kept.unshift(`[${i + 1} earlier lines left out]`);
      break;
    }
    budget -= cost;
    kept.unshift(lines[i]!);
  }
  return `${headText}${intro}\n${kept.join("\n")}`;
}

/** The longest prefix of `text` within `max` bytes, ending in "…". */
function cutToBytes(text: string, max: number): string {
  let end = Math.min(text.length, max);
  while (end > 0 && bytes(text.slice(0, end)) > max - 3) end--;
  return `${text.slice(0, end)}…`;
}
