import { useState } from "preact/hooks";
import { api, describe, type Run, type Schedule, unwrap } from "../lib/api";
import { usd, when } from "../lib/format";
import { inZone, olderInstruction, shortHash, utc } from "../lib/routines";
import { useLoad } from "../lib/use-load";
import { useRead } from "../lib/use-read";
import { Link } from "./link";
import { Notice } from "./notice";

/** A routine opened in the list: its instruction, a preview of its next wake-ups on demand, and the runs it fired. */
export function RoutineDetails(props: { schedule: Schedule }) {
  const s = props.schedule;
  return (
    <div class="routine-details" data-testid="routine-details">
      <div class="routine-columns">
        <section aria-label={`Instruction of ${s.description}`}>
          <h3>
            Instruction{" "}
            <code class="hash" title={`SHA-256 ${s.instruction_hash}`}>
              {shortHash(s.instruction_hash)}
            </code>
          </h3>
          <pre class="instruction">{s.instruction}</pre>
          {s.wake_window && (
            <p class="muted">
              Wake-ups in the current window: {s.window_fires} of {s.wake_window.max_wakes}.
            </p>
          )}
        </section>
        <Preview schedule={s} />
      </div>
      <RoutineRuns schedule={s} />
    </div>
  );
}

/** The next planned wake-ups, asked for on demand; a random window plans afresh each time. */
function Preview(props: { schedule: Schedule }) {
  const s = props.schedule;
  const [wakeUps, setWakeUps] = useState<string[] | null>(null);
  const { error, read } = useRead();
  const [busy, setBusy] = useState(false);

  const load = async () => {
    setBusy(true);
    const answer = await read(() => unwrap(api.GET("/api/schedules/{id}/preview", { params: { path: { id: s.id }, query: { count: 5 } } })));
    if (answer) setWakeUps(answer.wake_ups);
    setBusy(false);
  };

  return (
    <section aria-label={`Next wake-ups of ${s.description}`} aria-busy={busy}>
      <h3>Next wake-ups</h3>
      <button type="button" onClick={load} disabled={busy}>
        {wakeUps ? "Preview again" : "Preview next wake-ups"}
      </button>
      {s.wake_window && wakeUps && <small class="hint">A random window is planned afresh for each preview; the times differ from one to the next.</small>}
      {error && <Notice kind="error">{error}</Notice>}
      {wakeUps && wakeUps.length === 0 && <p>No wake-up planned.</p>}
      {wakeUps && wakeUps.length > 0 && (
        <ol class="preview" data-testid="preview">
          {wakeUps.map((iso) => (
            <li key={iso}>
              <time dateTime={iso}>{when(iso)}</time>{" "}
              <span class="muted">
                · {utc(iso)}
                {s.wake_window ? ` · ${inZone(iso, s.wake_window.timezone)}` : ""}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The runs the routine fired, newest first; a run fired with an older instruction is marked (UI-004, SCHED-019). */
function RoutineRuns(props: { schedule: Schedule }) {
  const s = props.schedule;
  const [more, setMore] = useState<Run[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const runsPage = (cursor?: string) => unwrap(api.GET("/api/schedules/{id}/runs", { params: { path: { id: s.id }, query: { limit: 10, cursor } } }));
  const first = useLoad(async () => {
    const page = await runsPage();
    setMore([]);
    setCursor(page.next_cursor);
    return page.data;
  }, [s.id, s.last_run_at]);

  const loadMore = async () => {
    if (!cursor) return;
    try {
      const page = await runsPage(cursor);
      setMore((m) => [...m, ...page.data]);
      setCursor(page.next_cursor);
    } catch (e) {
      setFailure(describe(e));
    }
  };

  const runs = [...(first.data ?? []), ...more];
  return (
    <section aria-label={`Runs of ${s.description}`}>
      <div class="title-row">
        <h3>Runs of this routine</h3>
        <button type="button" class="link" onClick={() => void first.reload()}>
          Refresh
        </button>
      </div>
      {first.error && <Notice kind="error">Could not load the runs: {first.error}</Notice>}
      {first.loading && !first.data && <p aria-busy="true">Loading…</p>}
      {first.data && runs.length === 0 && <p class="muted">This routine has not woken the agent yet.</p>}
      {runs.length > 0 && (
        <table class="list compact" data-testid="routine-runs">
          <caption class="sr-only">Runs fired by {s.description}</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">
                Cost
              </th>
              <th scope="col">Woke up</th>
              <th scope="col">Instruction</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => {
              const older = olderInstruction(r.instruction_hash, s);
              return (
                <tr key={r.id} data-run={r.id} data-older={older ? "true" : undefined}>
                  <td>
                    <Link href={`/runs/${r.id}`}>{r.label}</Link>
                  </td>
                  <td>
                    <span class={`badge status-${r.status}`}>{r.status}</span>
                    {r.errors.length > 0 && (
                      <span class="badge status-error">
                        {r.errors.length} error{r.errors.length > 1 ? "s" : ""}
                      </span>
                    )}
                  </td>
                  <td class="num">{usd(r.cost_usd)}</td>
                  <td>
                    {when(r.created_at)} <span class="muted">· {utc(r.created_at)}</span>
                  </td>
                  <td>
                    <code class="hash" title={r.instruction_hash ? `SHA-256 ${r.instruction_hash}` : undefined}>
                      {shortHash(r.instruction_hash)}
                    </code>{" "}
                    {older ? <span class="badge status-stub">older instruction</span> : r.instruction_hash ? <span class="badge">current</span> : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {failure && <Notice kind="error">{failure}</Notice>}
      {cursor && (
        <button type="button" onClick={loadMore}>
          Load older runs
        </button>
      )}
    </section>
  );
}
