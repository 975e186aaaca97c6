import type { Row, RunError, RunEvent } from "./api-types";
import { decodeEvent, mergeRows, type SseEvent } from "./sse";

/** Text streamed for a generation before its assistant row commits (UI-008). */
export interface Draft {
  generation: number | null;
  content: string;
  reasoning: string;
}

/** What the run view shows of a run while it streams. */
export interface LiveRun {
  rows: Row[];
  draft: Draft | null;
  generating: boolean;
  status: string | null;
  errors: RunError[];
}

export const emptyLiveRun = (): LiveRun => ({ rows: [], draft: null, generating: false, status: null, errors: [] });

/** The errors with each (code, generation, message) once, in order of arrival. */
export function mergeErrors(held: RunError[], incoming: RunError[]): RunError[] {
  const key = (e: RunError) => `${e.code}|${e.generation ?? ""}|${e.message}`;
  const seen = new Set(held.map(key));
  const added = incoming.filter((e) => !seen.has(key(e)) && seen.add(key(e)));
  return added.length ? [...held, ...added] : held;
}

/** Rows loaded over GET (history), merged without duplicates. */
export function withRows(state: LiveRun, rows: Row[]): LiveRun {
  const merged = mergeRows(state.rows, rows);
  if (merged === state.rows) return state;
  // The committed assistant row replaces the streamed draft (UI-008).
  const committedAssistant = rows.some((r) => r.role === "assistant" && state.draft && r.generation === state.draft.generation);
  return { ...state, rows: merged, draft: committedAssistant ? null : state.draft };
}

/**
 * Applies one event of GET /api/runs/:id/events: `message` rows (de-duplicated by
 * seq), `delta` text into the draft, `status` (a run that stops generating drops its
 * draft), `error`. Unknown events and unreadable data leave the state as it was.
 *
 * @example state = applyEvent(state, { event: "delta", data: '{"kind":"content","text":"Hi","generation":1}' })
 */
export function applyEvent(state: LiveRun, event: SseEvent): LiveRun {
  const decoded = decodeEvent<RunEvent>(event);
  if (!decoded) return state;
  switch (decoded.event) {
    case "message":
      return typeof decoded.data.seq === "number" ? withRows(state, [decoded.data]) : state;
    case "delta": {
      const { data } = decoded;
      const generation = typeof data.generation === "number" ? data.generation : null;
      const text = typeof data.text === "string" ? data.text : "";
      const draft = state.draft && state.draft.generation === generation ? state.draft : { generation, content: "", reasoning: "" };
      const next = data.kind === "reasoning" ? { ...draft, reasoning: draft.reasoning + text } : { ...draft, content: draft.content + text };
      return { ...state, draft: next, generating: true };
    }
    case "status": {
      const generating = decoded.data.generating === true;
      const status = typeof decoded.data.status === "string" ? decoded.data.status : state.status;
      return { ...state, generating, status, draft: generating ? state.draft : null };
    }
    case "error": {
      const { code, message, generation, at } = decoded.data;
      if (typeof code !== "string") return state;
      const error: RunError = {
        code,
        message: typeof message === "string" ? message : "",
        ...(typeof generation === "number" ? { generation } : {}),
        ...(typeof at === "string" ? { at } : {}),
      };
      return { ...state, errors: mergeErrors(state.errors, [error]) };
    }
    default:
      // run.continued is the view's to follow (run-chain.ts); any other name is not this stream's.
      return state;
  }
}
