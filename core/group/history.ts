import { MODEL_ANSWER_CAP } from "../http/answer-caps";
import { readJsonWithin } from "../http/read-within";
import type { PublicRow } from "./wake";

/**
 * group_chat_history, the public rows a group run's State shows through its snapshot
 * (GROUP-003, GROUP-004): the last 10, or 10 that a selector model picked from the last
 * 40 when one is configured. Any failure of the selector (timeout, HTTP error, a reply
 * that is not 1..10 distinct seqs of the candidates) falls back to the last 10, and the
 * run records which it got (OP-GROUP-3).
 */

export const HISTORY_ROWS = 10;
export const SELECTOR_CANDIDATES = 40;
export const SELECTOR_TIMEOUT_MS = 5_000;

export type HistorySource = "last_10" | "selector" | "fallback";

export interface ChosenHistory {
  rows: PublicRow[];
  source: HistorySource;
  /** Why the selector's answer was not used (source "fallback"). */
  reason?: string;
}

/** Picks seqs out of the candidates; throws when it cannot. */
export type Selector = (candidates: readonly PublicRow[]) => Promise<unknown>;

/**
 * @param candidates up to the last 40 public rows through the snapshot, in seq order
 * @example await chooseHistory(rows) // { rows: rows.slice(-10), source: "last_10" }
 */
export async function chooseHistory(candidates: readonly PublicRow[], select?: Selector): Promise<ChosenHistory> {
  const last = candidates.slice(-HISTORY_ROWS);
  if (!select || candidates.length <= HISTORY_ROWS) return { rows: last, source: "last_10" };
  try {
    const picked = pickedSeqs(await select(candidates), candidates);
    return { rows: candidates.filter((r) => picked.has(r.seq)), source: "selector" };
  } catch (error) {
    return { rows: last, source: "fallback", reason: error instanceof Error ? error.message : String(error) };
  }
}

/** The selector's answer as a set of candidate seqs; throws on anything else. */
export function pickedSeqs(answer: unknown, candidates: readonly Pick<PublicRow, "seq">[]): Set<number> {
  const seqs = (answer as { seqs?: unknown } | null)?.seqs;
  if (!Array.isArray(seqs) || seqs.length === 0 || seqs.length > HISTORY_ROWS) {
    throw new Error(`the selector must answer {"seqs": [...]} with 1 to ${HISTORY_ROWS} seqs`);
  }
  const known = new Set(candidates.map((c) => c.seq));
  const picked = new Set<number>();
  for (const seq of seqs) {
    if (!Number.isInteger(seq) || !known.has(seq)) throw new Error(`the selector picked ${JSON.stringify(seq)}, which is not a candidate`);
    picked.add(seq);
  }
  if (picked.size !== seqs.length) throw new Error("the selector picked a seq twice");
  return picked;
}

/**
 * A selector over an OpenAI-compatible endpoint: the candidates as numbered lines, the
 * answer as a JSON object `{"seqs": [...]}`. The key travels only in the Authorization
 * header and never into an error message.
 */
export function modelSelector(config: { baseURL: string; apiKey: string; model: string; fetch?: typeof fetch }): Selector {
  const doFetch = config.fetch ?? fetch;
  return async (candidates) => {
    const response = await doFetch(`${config.baseURL.replace(/\/$/, "")}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${config.apiKey}` },
      signal: AbortSignal.timeout(SELECTOR_TIMEOUT_MS),
      body: JSON.stringify({
        model: config.model,
        response_format: { type: "json_object" },
        messages: [
          {
            role: "system",
            content: `Pick the ${HISTORY_ROWS} group chat messages an agent most needs to follow the conversation. Answer only with JSON: {"seqs": [numbers]}.`,
          },
          { role: "user", content: candidates.map(historyLine).join("\n") },
        ],
      }),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`the selector answered HTTP ${response.status}`);
    }
    const body = (await readJsonWithin(response, MODEL_ANSWER_CAP)) as { choices?: Array<{ message?: { content?: string } }> };
    const text = body.choices?.[0]?.message?.content ?? "";
    try {
      return JSON.parse(text);
    } catch {
      throw new Error("the selector's reply is not JSON");
    }
  };
}

/** Longest text of one history line in State; a long post is cut, not dropped. */
const LINE_TEXT_MAX = 1_000;

/**
 * One row as State shows it: one line, so a post cannot forge further rows.
 *
 * @example historyLine(row) // "[12] operator (2026-01-01T09:00:00.000Z): hello @Scout"
 */
export function historyLine(row: Pick<PublicRow, "seq" | "authorName" | "content" | "createdAt">): string {
  const text = row.content.replace(/\s+/g, " ").trim();
  const cut = text.length > LINE_TEXT_MAX ? `${text.slice(0, LINE_TEXT_MAX)}…` : text;
  const at = row.createdAt instanceof Date ? row.createdAt.toISOString() : new Date(row.createdAt).toISOString();
  return `[${row.seq}] ${row.authorName.replace(/\s+/g, " ").trim()} (${at}): ${cut}`;
}
