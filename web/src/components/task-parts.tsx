import { useRef, useState } from "preact/hooks";
import { api, describe, type Task, type TaskMessage, type TaskRun, unwrap } from "../lib/api";
import { COMPOSER_KEYS_HINT, sendsMessage } from "../lib/composer-keys";
import { when } from "../lib/format";
import { outcomeText, runDuration, taskActions } from "../lib/tasks";
import { ConfirmAction } from "./confirm";
import { Link } from "./link";
import { Notice } from "./notice";

/**
 * The task's status menu (TASK-038): Cancel, Mark done and Reset workspace, each asking
 * first in the page. Each answers the task as it now is, which `onTask` shows at once;
 * Reset workspace also says what it did.
 */
export function TaskStatusMenu(props: { task: Task; onTask: (task: Task) => void; onReset: (message: string) => void }) {
  const { task } = props;
  const path = { params: { path: { id: task.id } } };
  const offered = taskActions(task.status);
  return (
    <details class="status-menu" data-testid="status-menu">
      <summary class="status-menu-toggle">Status menu</summary>
      <div class="status-menu-items" role="group" aria-label={`Change the status of ${task.key}`}>
        {offered.cancel && (
          <ConfirmAction
            label="Cancel task…"
            question={`Cancel ${task.key}? Its run, if one is active, is stopped.`}
            confirm="Cancel task"
            dismiss="Back"
            groupLabel={`Confirm cancelling ${task.key}`}
            onConfirm={async () => props.onTask(await unwrap(api.POST("/api/tasks/{id}/cancel", path)))}
          />
        )}
        {offered.done && (
          <ConfirmAction
            label="Mark done…"
            question={`Mark ${task.key} done? It closes as completed; its run, if one is active, is stopped.`}
            confirm="Mark done"
            dismiss="Back"
            groupLabel={`Confirm marking ${task.key} done`}
            onConfirm={async () => props.onTask(await unwrap(api.POST("/api/tasks/{id}/done", path)))}
          />
        )}
        {offered.reset && (
          <ConfirmAction
            label="Reset workspace…"
            question={`Reset the workspace of ${task.key}? Its cached checkout is deleted and the next run clones again; committed work and the WIP snapshot stay in Git.`}
            confirm="Reset workspace"
            dismiss="Back"
            groupLabel={`Confirm resetting the workspace of ${task.key}`}
            onConfirm={async () => {
              props.onTask(await unwrap(api.POST("/api/tasks/{id}/reset-workspace", path)));
              props.onReset("Workspace reset: the next run clones the repository again.");
            }}
          />
        )}
      </div>
    </details>
  );
}

/** The task's pull request, opened on GitHub in a new tab, once the first push opened it (TASK-018). */
export function PullRequestLink(props: { task: Task }) {
  const pr = props.task.pull_request;
  if (!pr) return null;
  return (
    <a href={pr.url} target="_blank" rel="noopener noreferrer" class="pull-request" data-testid="pull-request">
      Pull request #{pr.number}
    </a>
  );
}

/** The task's runs, oldest first: each links to its transcript, with its outcome and timings. */
export function TaskRuns(props: { runs: TaskRun[]; status: string; shownRunId: string | null; now: number }) {
  if (props.runs.length === 0) return <p class="muted">No run yet{props.status === "queued" ? ": the task waits for a free run slot" : ""}.</p>;
  return (
    <table class="list compact task-runs">
      <caption class="sr-only">Runs of the task</caption>
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Outcome</th>
          <th scope="col">Started</th>
          <th scope="col">Ended</th>
          <th scope="col" class="num">
            Took
          </th>
        </tr>
      </thead>
      <tbody>
        {props.runs.map((run, i) => (
          <tr key={run.id} data-run={run.run_id} data-outcome={run.outcome ?? "active"} aria-current={run.run_id === props.shownRunId ? "true" : undefined}>
            <td>
              <Link href={`/runs/${run.run_id}`}>Run {i + 1}</Link>
            </td>
            <td>
              <span class={`badge outcome-${run.outcome ?? "active"}`}>{outcomeText(run.outcome)}</span>
            </td>
            <td>
              <time dateTime={run.created_at}>{when(run.created_at)}</time>
            </td>
            <td>{run.ended_at ? <time dateTime={run.ended_at}>{when(run.ended_at)}</time> : "–"}</td>
            <td class="num">{runDuration(run, props.now)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The messages to the task's agent, oldest first: each "queued" until a run delivers it at
 * a turn boundary (TASK-019), then "delivered"; and the box that sends one. The typed text
 * is cleared only once the API accepted it.
 */
export function TaskMessages(props: { task: Task; messages: TaskMessage[]; onSent: (message: TaskMessage) => void }) {
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  // Set at once, so a second Enter before the re-render does not send twice.
  const inFlight = useRef(false);
  const send = async (event?: Event) => {
    event?.preventDefault();
    if (!text.trim() || inFlight.current) return;
    inFlight.current = true;
    setSending(true);
    setProblem(null);
    try {
      props.onSent(await unwrap(api.POST("/api/tasks/{id}/messages", { params: { path: { id: props.task.id } }, body: { content: text } })));
      setText("");
    } catch (e) {
      setProblem(describe(e));
    } finally {
      inFlight.current = false;
      setSending(false);
    }
  };
  return (
    <section class="task-messages" aria-labelledby="task-messages">
      <h2 id="task-messages">Messages</h2>
      {props.messages.length === 0 ? (
        <p class="muted">No message yet.</p>
      ) : (
        <ol class="task-message-list">
          {props.messages.map((m) => (
            <li key={m.id} data-message={m.id} data-state={m.delivered_at ? "delivered" : "queued"}>
              <div class="text">{m.content}</div>
              <small class="muted">
                Sent <time dateTime={m.created_at}>{when(m.created_at)}</time> ·{" "}
                {m.delivered_at ? (
                  <span class="badge status-completed">delivered</span>
                ) : (
                  <span class="badge status-stub" title="It reaches the agent at its next turn boundary">
                    queued
                  </span>
                )}
              </small>
            </li>
          ))}
        </ol>
      )}
      <form class="composer" onSubmit={send} aria-label="Send a message to the agent">
        {problem && <Notice kind="error">Not sent: {problem}. Your message is kept below.</Notice>}
        <div class="composer-row">
          <label for="task-message" class="sr-only">
            Message to the agent
          </label>
          <textarea
            id="task-message"
            name="content"
            rows={2}
            value={text}
            aria-describedby="task-message-keys"
            placeholder="Message to the agent: it reads it at its next turn"
            onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (sendsMessage(e)) void send(e);
            }}
          />
          <button type="submit" class="primary" disabled={sending || !text.trim()}>
            {sending ? "Sending…" : "Send"}
          </button>
        </div>
        <small id="task-message-keys" class="hint">
          {COMPOSER_KEYS_HINT}
        </small>
      </form>
    </section>
  );
}
