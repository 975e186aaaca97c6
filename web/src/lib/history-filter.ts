/** The agent History's filter, kept in the page's query string so a reload keeps it; pure. */

export const RUN_KINDS = [
  ["", "All kinds"],
  ["direct", "Direct chats"],
  ["group", "Group chats"],
  ["schedule", "Schedule wake-ups"],
] as const;
/** The run statuses the API knows (`?status=`). */
export const RUN_STATUSES = [
  ["", "Any status"],
  ["active", "Active"],
  ["completed", "Completed"],
] as const;

export interface HistoryFilter {
  kind: string;
  status: string;
  q: string;
}

const known = (value: string | null, options: ReadonlyArray<readonly [string, string]>) => (options.some(([v]) => v === value) ? value! : "");

/**
 * The filter in a query string; unknown values read as "all".
 *
 * @example historyFilter("?status=completed&q=plan") // { kind: "", status: "completed", q: "plan" }
 */
export function historyFilter(search: string): HistoryFilter {
  const params = new URLSearchParams(search);
  return { kind: known(params.get("kind"), RUN_KINDS), status: known(params.get("status"), RUN_STATUSES), q: params.get("q") ?? "" };
}

/**
 * The query string of a filter, without its empty parts ("" when nothing filters).
 *
 * @example filterQuery({ kind: "", status: "active", q: "a b" }) // "?status=active&q=a+b"
 */
export function filterQuery(filter: HistoryFilter): string {
  const params = new URLSearchParams();
  if (filter.kind) params.set("kind", filter.kind);
  if (filter.status) params.set("status", filter.status);
  if (filter.q.trim()) params.set("q", filter.q.trim());
  const text = params.toString();
  return text ? `?${text}` : "";
}
