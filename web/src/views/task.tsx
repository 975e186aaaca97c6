import { useEffect, useRef, useState } from "preact/hooks";
import { Link } from "../components/link";
import { Markdown } from "../components/markdown";
import { Notice } from "../components/notice";
import { AttemptOf, TaskAttempts } from "../components/task-attempts";
import { TaskBudget } from "../components/task-budget";
import { TaskChecks } from "../components/task-checks";
import { PullRequestLink, TaskMessages, TaskRuns, TaskStatusMenu } from "../components/task-parts";
import { Transcript } from "../components/transcript";
import { api, type Row, unwrap } from "../lib/api";
import { stoppedByBudget } from "../lib/task-budget";
import { mergeMessages, newerTask, shownRun, statusText } from "../lib/tasks";
import { useLoad } from "../lib/use-load";
import { useRunTranscript } from "../lib/use-run-transcript";
import { useTask } from "../lib/use-task";

/**
 * One task: its key, title and status with the status menu, its pull request, its checks, a
 * best-of-N task's attempts side by side (an attempt links its parent), its runs
 * (each linking to its transcript), the live transcript of the active or latest run, and
 * the messages to its agent with the box that sends one.
 */
export function TaskView(props: { id: string }) {
  const t = useTask(props.id);
  const task = t.task;
  const guild = useLoad(async () => (task ? unwrap(api.GET("/api/guilds/{id}", { params: { path: { id: task.guild_id } } })) : null), [task?.guild_id]);
  const agent = useLoad(async () => (task ? unwrap(api.GET("/api/agents/{id}", { params: { path: { id: task.agent_id } } })) : null), [task?.agent_id]);
  const repositories = useLoad(
    async () => (task ? (await unwrap(api.GET("/api/guilds/{id}/repositories", { params: { path: { id: task.guild_id } } }))).data : []),
    [task?.guild_id],
  );
  const [notice, setNotice] = useState<{ kind: "success" | "error"; text: string } | null>(null);
  const shown = shownRun(t.runs);
  const active = shown?.outcome === null;
  const now = useNow(active);

  if (t.failure && !task) return <Notice kind="error">Could not open the task: {t.failure}</Notice>;
  if (!task) return <p aria-busy="true">Loading…</p>;
  const repository = repositories.data?.find((r) => r.id === task.repository_id);

  return (
    <section class="task-view">
      <p class="crumbs">
        <Link href="/guilds">Guilds</Link> › <Link href={`/guilds/${task.guild_id}`}>{guild.data?.name ?? "Guild"}</Link> ›{" "}
        <Link href={`/guilds/${task.guild_id}/tasks`}>Tasks</Link> ›
      </p>
      <div class="title-row">
        <h1>
          <span class="task-key">{task.key}</span> {task.title}
        </h1>
        <span class={`badge task-status status-${task.status}`} data-testid="task-status">
          {statusText(task.status)}
        </span>
        <span class="live" data-connection={t.connection}>
          {t.connection === "open" ? "● live" : t.connection === "closed" ? "offline" : "connecting…"}
        </span>
        <span class="spacer" />
        <TaskStatusMenu
          task={task}
          onTask={(next) => {
            setNotice(null);
            t.apply((s) => ({ ...s, task: newerTask(s.task, next) }));
          }}
          onReset={(text) => setNotice({ kind: "success", text })}
        />
      </div>
      <p class="task-facts muted">
        {agent.data ? <Link href={`/agents/${agent.data.id}`}>{agent.data.name}</Link> : "An agent"} · <code>{repository?.full_name ?? "repository"}</code> ·
        branch <code>{task.branch}</code> into <code>{task.base_branch}</code>
        {task.pull_request && (
          <>
            {" "}
            · <PullRequestLink task={task} />
          </>
        )}
      </p>
      <AttemptOf task={task} />
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      {t.failure && <Notice kind="error">{t.failure}</Notice>}
      <TaskChecks task={task} />
      <TaskBudget
        task={task}
        stopped={stoppedByBudget(task.status, t.runs)}
        onTask={(next) => {
          setNotice(null);
          t.apply((s) => ({ ...s, task: newerTask(s.task, next) }));
        }}
      />
      {task.description && (
        <section class="card task-description" aria-label="Description">
          <Markdown text={task.description} />
        </section>
      )}
      {task.best_of > 1 && <TaskAttempts task={task} onTask={(next) => t.apply((s) => ({ ...s, task: newerTask(s.task, next) }))} />}
      <h2 id="task-runs">Runs</h2>
      <TaskRuns runs={t.runs} status={task.status} shownRunId={shown?.run_id ?? null} now={now} />
      {shown && (
        <TaskTranscript
          key={shown.run_id}
          runId={shown.run_id}
          agentId={task.agent_id}
          active={active}
          // A user row is a message delivered: the list shows it delivered. An assistant row
          // is a model call paid: the spend shows it.
          onRow={(row) => {
            if (row.role === "user" || row.role === "assistant") void t.refresh();
          }}
        />
      )}
      <TaskMessages task={task} messages={t.messages} onSent={(message) => t.apply((s) => ({ ...s, messages: mergeMessages(s.messages, [message]) }))} />
    </section>
  );
}

/** The transcript of one of the task's runs, live while it runs. */
function TaskTranscript(props: { runId: string; agentId: string; active: boolean; onRow: (row: Row) => void }) {
  const { live, failure } = useRunTranscript(props.runId, { onRow: props.onRow });
  // Follow the transcript's end while the reader is near it.
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = scroller.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 240) el.scrollTop = el.scrollHeight;
  }, [live.rows.length, live.draft?.content.length]);
  return (
    <section class="task-transcript" aria-labelledby="task-transcript">
      <div class="title-row">
        <h2 id="task-transcript">{props.active ? "Transcript of the active run" : "Transcript of the latest run"}</h2>
        <Link href={`/runs/${props.runId}`}>Open the run</Link>
      </div>
      {failure && <Notice kind="error">Could not load the transcript: {failure}</Notice>}
      <div class="transcript-scroll" ref={scroller} role="region" tabIndex={0} aria-label="Transcript, scrollable">
        <Transcript runId={props.runId} agentId={props.agentId} rows={live.rows} draft={live.draft} generating={live.generating} />
      </div>
    </section>
  );
}

/** The time now, moving every few seconds while `ticking` (an active run's duration grows). */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 5_000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}
