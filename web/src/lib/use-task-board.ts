import { useEffect, useRef, useState } from "preact/hooks";
import { STATUS_POLL_MS } from "./agent-status";
import { api, describeRead, everyPage, type Task, unwrap } from "./api";
import { createRefresher, type Refresher } from "./refresher";
import { TASK_COLUMNS, withNewerTasks } from "./tasks";
import { pollWhileVisible } from "./visible-poll";

/** How many closed tasks the Done column shows: the newest filed; the board asks for no more. */
export const DONE_SHOWN = 50;

const OPEN = TASK_COLUMNS.filter((c) => c.key !== "done")
  .flatMap((c) => c.statuses)
  .join(",");
const DONE = TASK_COLUMNS.find((c) => c.key === "done")!.statuses.join(",");

/**
 * A guild's tasks, held live by a light poll: asked again every few seconds while the page
 * is visible (and at once when it becomes visible). Every open task is read, and of the
 * closed ones only the newest DONE_SHOWN, so a poll stays small as the closed ones pile
 * up. `added` shows a task the user just filed at once; an answer read before it was filed
 * cannot take it off the board again.
 */
export function useTaskBoard(guildId: string) {
  const [tasks, setTasks] = useState<Task[] | null>(null);
  const [moreDone, setMoreDone] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const held = useRef<Task[]>([]);
  const refresher = useRef<Refresher | null>(null);

  useEffect(() => {
    const show = (next: Task[]) => {
      held.current = next;
      setTasks(next);
    };
    const list = (query: { status: string; limit: number; cursor?: string }) =>
      unwrap(api.GET("/api/guilds/{id}/tasks", { params: { path: { id: guildId }, query } }));
    const board = createRefresher(
      () => Promise.all([everyPage((cursor) => list({ status: OPEN, limit: 200, ...(cursor ? { cursor } : {}) })), list({ status: DONE, limit: DONE_SHOWN })]),
      ([open, done]) => {
        show(withNewerTasks(held.current, [...open, ...done.data]));
        setMoreDone(done.next_cursor !== null);
        setFailure(null);
      },
      (e) => setFailure(describeRead(e)),
    );
    refresher.current = board;
    const stop = pollWhileVisible(() => board.refresh(), STATUS_POLL_MS);
    return () => {
      board.stop();
      stop();
    };
  }, [guildId]);

  const added = (task: Task) => {
    held.current = [task, ...held.current.filter((t) => t.id !== task.id)];
    setTasks(held.current);
    refresher.current?.changed();
    void refresher.current?.refresh();
  };
  return { tasks, moreDone, failure, added };
}
