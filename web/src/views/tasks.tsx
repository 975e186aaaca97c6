import { useState } from "preact/hooks";
import { GuildHeader } from "../components/guild-tabs";
import { Link } from "../components/link";
import { Notice } from "../components/notice";
import { TaskForm } from "../components/task-form";
import { PullRequestLink } from "../components/task-parts";
import { type Agent, api, type Task, unwrap } from "../lib/api";
import { boardColumns, statusText } from "../lib/tasks";
import { useLoad } from "../lib/use-load";
import { DONE_SHOWN, useTaskBoard } from "../lib/use-task-board";

/**
 * A guild's task board: its tasks in columns by status (Queued, Running, Waiting for you,
 * In review, Done), kept current by a light poll, and the New task form.
 */
export function TasksView(props: { id: string }) {
  const path = { params: { path: { id: props.id } } };
  const guild = useLoad(() => unwrap(api.GET("/api/guilds/{id}", path)), [props.id]);
  const agents = useLoad(async () => (await unwrap(api.GET("/api/agents", { params: { query: { guild_id: props.id, limit: 200 } } }))).data, [props.id]);
  const repositories = useLoad(async () => (await unwrap(api.GET("/api/guilds/{id}/repositories", path))).data, [props.id]);
  const board = useTaskBoard(props.id);
  const [creating, setCreating] = useState(false);
  const [filed, setFiled] = useState<Task | null>(null);

  if (guild.error) return <Notice kind="error">Could not load the guild: {guild.error}</Notice>;
  if (!guild.data) return <p aria-busy="true">Loading…</p>;
  const agentName = new Map((agents.data ?? []).map((a: Agent) => [a.id, a.name]));
  const repositoryName = new Map((repositories.data ?? []).map((r) => [r.id, r.full_name]));

  return (
    <section>
      <GuildHeader guild={guild.data} title="Tasks" current="tasks" />
      <p class="lead">Work for the guild's coding agents: each task has its own branch and pull request, and runs until the agent is done or waits for you.</p>
      {agents.error && <Notice kind="error">Could not load the agents: {agents.error}</Notice>}
      {repositories.error && <Notice kind="error">Could not load the repositories: {repositories.error}</Notice>}
      {filed && (
        <Notice kind="success" testId="task-filed">
          Filed <Link href={`/tasks/${filed.id}`}>{filed.key}</Link>: it starts as soon as a run slot is free.
        </Notice>
      )}
      {creating && agents.data && repositories.data ? (
        <TaskForm
          guildId={props.id}
          agents={agents.data}
          repositories={repositories.data}
          onFiled={(task) => {
            board.added(task);
            setFiled(task);
            setCreating(false);
          }}
          onCancel={() => setCreating(false)}
        />
      ) : (
        <button
          type="button"
          class="primary"
          disabled={creating}
          onClick={() => {
            setCreating(true);
            setFiled(null);
          }}
        >
          New task
        </button>
      )}
      {board.failure && <Notice kind="error">Could not load the tasks: {board.failure}</Notice>}
      {!board.tasks && !board.failure && <p aria-busy="true">Loading the tasks…</p>}
      {board.tasks && board.tasks.length === 0 && <p class="muted">No task in this guild yet.</p>}
      {board.tasks && board.tasks.length > 0 && (
        <div class="task-board" data-testid="task-board">
          {boardColumns(board.tasks).map((column) => (
            <section key={column.key} class="task-column" data-column={column.key} aria-labelledby={`column-${column.key}`}>
              <h2 id={`column-${column.key}`} class="task-column-title">
                {column.label} <span class="count">{column.tasks.length}</span>
              </h2>
              {column.key === "done" && board.moreDone && <p class="muted hint">The newest {DONE_SHOWN} filed; older ones are not shown.</p>}
              {column.tasks.length === 0 ? (
                <p class="muted empty">None</p>
              ) : (
                <ul>
                  {column.tasks.map((task) => (
                    <li key={task.id} class="task-card" data-task={task.key} data-status={task.status}>
                      <p class="task-card-head">
                        <Link href={`/tasks/${task.id}`} class="task-key">
                          {task.key}
                        </Link>
                        <span class={`badge task-status status-${task.status}`}>{statusText(task.status)}</span>
                      </p>
                      <p class="task-title">{task.title}</p>
                      <p class="task-meta muted">
                        {agentName.get(task.agent_id) ?? "An agent"} · {repositoryName.get(task.repository_id) ?? "a repository"}
                      </p>
                      {task.pull_request && (
                        <p class="task-meta">
                          <PullRequestLink task={task} />
                        </p>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </section>
          ))}
        </div>
      )}
    </section>
  );
}
