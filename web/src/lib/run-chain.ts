/**
 * The run a `run.continued` event points at (CHAIN-011), from the event's raw data; null
 * for anything else, so a malformed event never moves the view.
 * @example continuedTo('{"run_id":"b1…","previous_run_id":"a1…"}') // "b1…"
 */
export function continuedTo(data: string): string | null {
  try {
    const parsed = JSON.parse(data) as { run_id?: unknown };
    return typeof parsed.run_id === "string" && /^[0-9a-f-]{36}$/i.test(parsed.run_id) ? parsed.run_id : null;
  } catch {
    return null;
  }
}
