import type { EventData, RunEvent } from "./api-types";
import { decodeEvent } from "./sse";

/**
 * The run a `run.continued` event points at (CHAIN-011), from the event's raw data; null
 * for anything else, so a malformed event never moves the view.
 * @example continuedTo('{"run_id":"b1…","previous_run_id":"a1…"}') // "b1…"
 */
export function continuedTo(data: string): string | null {
  const decoded = decodeEvent<{ event: "run.continued"; data: Partial<EventData<RunEvent, "run.continued">> }>({ event: "run.continued", data });
  const runId = decoded?.data.run_id;
  return typeof runId === "string" && /^[0-9a-f-]{36}$/i.test(runId) ? runId : null;
}
