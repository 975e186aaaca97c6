import { useEffect, useRef, useState } from "preact/hooks";
import { api, describeRead, everyPage, streamRefused, type Task, type TaskEvent, type TaskMessage, type TaskRun, unwrap } from "./api";
import { getToken } from "./auth";
import { createRefresher, type Refresher } from "./refresher";
import { type ConnectionState, openEventStream } from "./run-stream";
import { decodeEvent, type SseEvent } from "./sse";
import { mergeMessages, mergeRuns, newerTask } from "./tasks";

export interface TaskState {
  task: Task | null;
  runs: TaskRun[];
  messages: TaskMessage[];
}

/**
 * One task held live: the task, its runs and its messages, loaded again on each event of
 * GET /api/tasks/:id/events that may change them (`task.status`, `task.run_started`,
 * `task.run_ended`, the status sent on connecting, a user row: a message delivered) and
 * after a dropped stream; loads asked for while one is on its way collapse into one more.
 * The transcript itself comes from the run's own stream, which carries the token deltas
 * too. What the user just did (`apply`: an action's own answer) is never undone by an
 * answer read before it.
 */
export function useTask(taskId: string) {
  const [state, setState] = useState<TaskState>({ task: null, runs: [], messages: [] });
  const [failure, setFailure] = useState<string | null>(null);
  const [connection, setConnection] = useState<ConnectionState>("connecting");
  const held = useRef(state);
  const refresher = useRef<Refresher | null>(null);
  const show = (change: (s: TaskState) => TaskState) => {
    held.current = change(held.current);
    setState(held.current);
  };

  useEffect(() => {
    const path = { params: { path: { id: taskId } } };
    const load = async (): Promise<TaskState> => {
      const [task, runs, messages] = await Promise.all([
        unwrap(api.GET("/api/tasks/{id}", path)),
        everyPage((cursor) => unwrap(api.GET("/api/tasks/{id}/runs", { params: { path: { id: taskId }, query: { limit: 200, cursor } } }))),
        everyPage((cursor) => unwrap(api.GET("/api/tasks/{id}/messages", { params: { path: { id: taskId }, query: { limit: 200, cursor } } }))),
      ]);
      return { task, runs, messages };
    };
    const page = createRefresher(
      load,
      (answer) => {
        show((s) => ({
          task: answer.task ? newerTask(s.task, answer.task) : s.task,
          runs: mergeRuns(s.runs, answer.runs),
          messages: mergeMessages(s.messages, answer.messages),
        }));
        setFailure(null);
      },
      (e) => setFailure(describeRead(e)),
    );
    refresher.current = page;
    let stream: { close(): void } | null = null;
    let stopped = false;
    void (async () => {
      await page.refresh();
      if (stopped || !held.current.task) return;
      stream = openEventStream({
        path: `/api/tasks/${encodeURIComponent(taskId)}/events`,
        token: getToken() ?? "",
        // The stream's positions are its own (they span the task's runs): after a drop it
        // resumes from the last it sent (Last-Event-ID), which openEventStream keeps.
        lastSeq: () => -1,
        onEvent: (event) => {
          if (event.event.startsWith("task.") || event.event === "status" || isUserRow(event)) void page.refresh();
        },
        beforeReconnect: () => page.refresh(),
        onConnection: setConnection,
        onFatal: streamRefused("task", setFailure),
      });
      if (stopped) stream.close();
    })();
    return () => {
      stopped = true;
      page.stop();
      stream?.close();
    };
  }, [taskId]);

  return {
    ...state,
    failure,
    connection,
    /** Loads the task, its runs and messages again. */
    refresh: () => refresher.current?.refresh() ?? Promise.resolve(),
    /** Shows what an action answered, and drops answers to requests sent before it. */
    apply: (change: (s: TaskState) => TaskState) => {
      show(change);
      refresher.current?.changed();
      void refresher.current?.refresh();
    },
  };
}

/** Whether an event is a user row: a task message reached the agent. */
function isUserRow(event: SseEvent): boolean {
  const decoded = decodeEvent<TaskEvent>(event);
  return decoded?.event === "message" && decoded.data.role === "user";
}
