import { useEffect, useState } from "preact/hooks";
import { api, describe, type Run, type RunKind, unwrap } from "../lib/api";
import { kindLabel, usd, when } from "../lib/format";
import { filterQuery, type HistoryFilter, RUN_KINDS, RUN_STATUSES } from "../lib/history-filter";
import { useLoad } from "../lib/use-load";
import { Link } from "./link";
import { Notice } from "./notice";

/** Typing in the search asks the API once the typing pauses this long. */
const SEARCH_PAUSE_MS = 300;

/** The History's filters: kind, status, and a search in the titles. */
export function HistoryFilters(props: { filter: HistoryFilter; onChange: (filter: HistoryFilter) => void }) {
  const { filter, onChange } = props;
  const [q, setQ] = useState(filter.q);
  useEffect(() => {
    if (q === filter.q) return;
    const timer = setTimeout(() => onChange({ ...filter, q }), SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [q, filter.kind, filter.status, filter.q]);
  const select = (key: "kind" | "status", label: string, options: ReadonlyArray<readonly [string, string]>) => (
    <span class="inline-field">
      <label for={`history-${key}`}>{label}</label>
      <select id={`history-${key}`} value={filter[key]} onChange={(e) => onChange({ ...filter, [key]: (e.currentTarget as HTMLSelectElement).value })}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </span>
  );
  return (
    <div class="history-filters" role="search" aria-label="Filter the history">
      {select("kind", "Show", RUN_KINDS)}
      {select("status", "Status", RUN_STATUSES)}
      <span class="inline-field">
        <label for="history-q">Search</label>
        <input
          id="history-q"
          type="search"
          value={q}
          placeholder="Title contains…"
          maxLength={200}
          onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)}
        />
      </span>
    </div>
  );
}

/** The agent's runs, newest first, as the filter selects them (the API filters), 25 a page; loaded again when `refresh` changes. */
export function RunHistory(props: { agentId: string; filter: HistoryFilter; refresh?: number }) {
  const query = filterQuery(props.filter);
  const [pages, setPages] = useState<Run[][]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const { kind, status, q } = props.filter;
  const runsPage = (cursor?: string) =>
    unwrap(
      api.GET("/api/agents/{id}/runs", {
        params: {
          path: { id: props.agentId },
          query: {
            limit: 25,
            cursor,
            kind: (kind || undefined) as RunKind | undefined,
            status: (status || undefined) as Run["status"] | undefined,
            q: q.trim() || undefined,
          },
        },
      }),
    );
  const first = useLoad(async () => {
    const page = await runsPage();
    setPages([page.data]);
    setCursor(page.next_cursor);
    return page;
  }, [props.agentId, query, props.refresh]);
  const [more, setMore] = useState<string | null>(null);

  const loadMore = async () => {
    if (!cursor) return;
    try {
      const page = await runsPage(cursor);
      setPages((p) => [...p, page.data]);
      setCursor(page.next_cursor);
    } catch (e) {
      setMore(describe(e));
    }
  };

  if (first.error) return <Notice kind="error">Could not load the history: {first.error}</Notice>;
  if (first.loading && pages.length === 0) return <p aria-busy="true">Loading…</p>;
  const runs = pages.flat();
  const filtered = query !== "";
  if (runs.length === 0) return <p data-testid="history-empty">{filtered ? "No run matches the filter." : "No runs yet."}</p>;
  return (
    <>
      <table class="list history" aria-describedby="history" aria-busy={first.loading}>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Kind</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Cost
            </th>
            <th scope="col">Started</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} data-run={r.id}>
              <td>
                <Link href={`/runs/${r.id}`}>{r.label}</Link>
              </td>
              <td>
                <span class={`badge kind-${r.kind}`}>{kindLabel(r.kind)}</span>
              </td>
              <td>
                <span class={`badge status-${r.status}`}>{r.status}</span>
                {r.archived_at && <span class="badge status-archived">archived</span>}
                {r.errors.length > 0 && (
                  <span class="badge status-error" title={r.errors.map((e) => e.code).join(", ")}>
                    {r.errors.length} error{r.errors.length > 1 ? "s" : ""}
                  </span>
                )}
              </td>
              <td class="num">{usd(r.cost_usd)}</td>
              <td>{when(r.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {more && <Notice kind="error">{more}</Notice>}
      {cursor && (
        <button type="button" onClick={loadMore}>
          Load older runs
        </button>
      )}
    </>
  );
}
