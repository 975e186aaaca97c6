import { useEffect, useRef, useState } from "preact/hooks";
import { STATUS_POLL_MS, upcoming } from "../lib/agent-status";
import { type AgentStatus, api, describeRead, unwrap } from "../lib/api";
import { when } from "../lib/format";
import { utc } from "../lib/routines";
import { pollWhileVisible } from "../lib/visible-poll";
import { Link } from "./link";

/**
 * Whether the agent is generating now (and in which run) and its next deadlines, from
 * `GET /api/agents/:id/status`. Asked again every few seconds while the page is visible
 * (and at once when it becomes visible), so a finished generation turns to idle.
 * `onGenerationChange` hears when a generation starts or ends (a run may have appeared).
 */
export function AgentStatusPanel(props: { agentId: string; onGenerationChange?: () => void }) {
  const [status, setStatus] = useState<AgentStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const onChange = useRef(props.onGenerationChange);
  onChange.current = props.onGenerationChange;
  const lastRun = useRef<string | null | undefined>(undefined);

  useEffect(() => {
    let stopped = false;
    const stop = pollWhileVisible(async () => {
      try {
        const next = await unwrap(api.GET("/api/agents/{id}/status", { params: { path: { id: props.agentId } } }));
        if (stopped) return;
        const run = next.generating ? (next.run_id ?? null) : null;
        if (lastRun.current !== undefined && lastRun.current !== run) onChange.current?.();
        lastRun.current = run;
        setStatus(next);
        setError(null);
      } catch (e) {
        if (!stopped) setError(describeRead(e));
      }
    }, STATUS_POLL_MS);
    return () => {
      stopped = true;
      stop();
    };
  }, [props.agentId]);

  const deadlines = status ? upcoming(status.deadlines) : [];
  return (
    <section
      class="agent-status card"
      aria-labelledby="agent-status"
      data-testid="agent-status"
      data-generating={status ? String(status.generating) : undefined}
    >
      <h2 id="agent-status" class="sr-only">
        Agent status
      </h2>
      {error && <p class="muted">Status unavailable: {error}</p>}
      {!status && !error && (
        <p aria-busy="true" class="muted">
          Status…
        </p>
      )}
      {status && (
        <p class="status-line" aria-live="polite">
          {status.generating && status.run_id ? (
            <>
              <span class="spinner" aria-hidden="true" /> <strong>Generating</strong> in{" "}
              <Link href={`/runs/${status.run_id}`}>run {status.run_id.slice(0, 8)}</Link>
              {status.generation !== undefined && <> · generation {status.generation}</>}
              {status.started_at && (
                <>
                  {" "}
                  · since <time dateTime={status.started_at}>{when(status.started_at)}</time>
                </>
              )}
              {status.lease_expired && (
                <>
                  {" "}
                  · <span class="badge status-error">lost; recovery pending</span>
                </>
              )}
            </>
          ) : (
            <>
              <span class="dot idle" aria-hidden="true" /> <strong>Idle</strong> <span class="muted">· not generating</span>
            </>
          )}
        </p>
      )}
      {status &&
        (deadlines.length === 0 ? (
          <p class="muted" data-testid="no-deadlines">
            No deadline pending.
          </p>
        ) : (
          <dl class="deadlines">
            {deadlines.map((d) => (
              <div key={d.name} data-deadline={d.name}>
                <dt>{d.label}</dt>
                <dd>
                  <time dateTime={d.due_at}>{when(d.due_at)}</time> <span class="muted">· {utc(d.due_at)}</span>
                </dd>
              </div>
            ))}
          </dl>
        ))}
    </section>
  );
}
