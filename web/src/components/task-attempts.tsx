import { useEffect, useState } from "preact/hooks";
import { api, type Task, type TaskAttempt, unwrap } from "../lib/api";
import { usd } from "../lib/format";
import { statusText } from "../lib/tasks";
import { Link } from "./link";
import { Notice } from "./notice";

/** How often the cards are read again while the attempts run (their own events are on their own pages). */
const POLL_MS = 10_000;

const checksText: Record<TaskAttempt["checks"], string> = { none: "no checks", pending: "checks pending", passing: "checks pass", failing: "checks fail" };

/**
 * A best-of-N task's attempts side by side (GET /api/tasks/:id `attempts`): each one's key
 * linking to its page, status, checks, diffstat and cost, and which one the pull request
 * came from. Read again every few seconds while the parent waits on its attempts, the parent
 * with them (`onTask`).
 */
export function TaskAttempts(props: { task: Task; onTask: (task: Task) => void }) {
  const { task } = props;
  const [attempts, setAttempts] = useState<TaskAttempt[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    let stopped = false;
    const load = async () => {
      try {
        const detail = await unwrap(api.GET("/api/tasks/{id}", { params: { path: { id: task.id } } }));
        if (!stopped) {
          setAttempts(detail.attempts);
          // The parent's own status moves when its attempts end (no event reaches its page).
          if (detail.updated_at !== task.updated_at) props.onTask(detail);
          setFailure(null);
        }
      } catch (e) {
        if (!stopped) setFailure(String(e));
      }
    };
    void load();
    const timer = task.status === "running" ? setInterval(load, POLL_MS) : null;
    return () => {
      stopped = true;
      if (timer) clearInterval(timer);
    };
  }, [task.id, task.status, task.updated_at]);

  const winner = attempts?.find((a) => a.won);
  return (
    <section class="task-attempts" aria-labelledby="task-attempts">
      <h2 id="task-attempts">Attempts (best of {task.best_of})</h2>
      <p class="muted">
        {winner
          ? `The pull request comes from ${winner.key}: its checks pass with the smallest diff.`
          : task.status === "running"
            ? "The attempts run side by side; when all have ended, the one whose checks pass with the smallest diff opens the pull request."
            : "No attempt was picked; every attempt's branch is kept."}
      </p>
      {failure && <Notice kind="error">Could not load the attempts: {failure}</Notice>}
      {attempts && (
        <ul class="attempt-cards">
          {attempts.map((a) => (
            <li key={a.id} class="card attempt-card" data-won={a.won ? "true" : undefined} data-testid="attempt-card">
              <p class="task-card-head">
                <Link href={`/tasks/${a.id}`} class="task-key">
                  {a.key}
                </Link>
                <span class={`badge task-status status-${a.status}`}>{statusText(a.status)}</span>
              </p>
              {a.won && <p class="attempt-won">Picked: the pull request comes from this attempt</p>}
              <p class={`attempt-checks checks-${a.checks}`}>{checksText[a.checks]}</p>
              <p class="mono">
                {a.diffstat ? (
                  <>
                    <span class="diff-add-count">+{a.diffstat.additions}</span> <span class="diff-remove-count">−{a.diffstat.deletions}</span>
                  </>
                ) : (
                  <span class="muted">no diff yet</span>
                )}
              </p>
              <p class="muted">{usd(a.spend_usd)}</p>
              <p class="muted mono attempt-branch">{a.branch}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** An attempt's link to the task it is an attempt of. */
export function AttemptOf(props: { task: Task }) {
  if (!props.task.parent_task_id) return null;
  return (
    <p class="muted attempt-of">
      Attempt {props.task.attempt} of a best-of-N task: <Link href={`/tasks/${props.task.parent_task_id}`}>see all its attempts</Link>
    </p>
  );
}
