import { useEffect, useRef, useState } from "preact/hooks";
import { loadRows, type Row, streamRefused } from "./api";
import { getToken } from "./auth";
import { applyEvent, emptyLiveRun, type LiveRun, withRows } from "./live-run";
import { type ConnectionState, openRunStream } from "./run-stream";
import { lastSeq, type SseEvent } from "./sse";
import { failureNotice, retryingNotice, untilAvailable } from "./unavailable";

/** What a page adds to the transcript it holds (the run page: its run beside the rows). */
export interface RunTranscriptOptions {
  /** Hears each committed row that arrives live (on the task page a user row: a task message was delivered). */
  onRow?: (row: Row) => void;
  /** Read before the rows, and again like them while the database does not answer. */
  opening?: () => Promise<void>;
  /** An event the page takes in place of the transcript: true when it took it. */
  takes?: (event: SseEvent) => boolean;
  /** Hears each event the transcript applied, with the state before and after it. */
  applied?: (event: SseEvent, before: LiveRun, after: LiveRun) => void;
  /** After a drop, once the rows it missed are reloaded and before the stream resumes. */
  reloaded?: () => Promise<void>;
  /** How a failed load reads: its message unless the page says otherwise. */
  describe?: (error: unknown) => string;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * A run's transcript held live, as the run page and the task page hold it: the rows from
 * history, then GET /api/runs/:id/events (rows, token deltas, status), each seq once,
 * reloading what it missed after a drop (UI-007); while the database does not answer it says
 * so and reads again after the answer's Retry-After. `update` changes the state as the
 * stream does (the run page's own reads of the run).
 */
export function useRunTranscript(runId: string, options: RunTranscriptOptions = {}) {
  const [live, setLive] = useState<LiveRun>(emptyLiveRun);
  const [failure, setFailure] = useState<string | null>(null);
  const [connection, setConnection] = useState<ConnectionState>("connecting");
  // The state as of the last event, read synchronously by the stream (lastSeq).
  const liveRef = useRef<LiveRun>(live);
  const page = useRef(options);
  page.current = options;
  const update = (change: (s: LiveRun) => LiveRun) => {
    liveRef.current = change(liveRef.current);
    setLive(liveRef.current);
  };

  useEffect(() => {
    let stream: { close(): void } | null = null;
    let stopped = false;
    const notice = retryingNotice(failureNotice(setFailure));
    liveRef.current = emptyLiveRun();
    setLive(liveRef.current);
    (async () => {
      try {
        const opening = page.current.opening;
        if (opening) await untilAvailable(opening, notice, () => stopped);
        const rows = await untilAvailable(
          () => loadRows(runId),
          notice,
          () => stopped,
        );
        if (stopped) return;
        update((s) => withRows(s, rows));
      } catch (e) {
        if (!stopped) setFailure((page.current.describe ?? messageOf)(e));
        return;
      }
      stream = openRunStream({
        runId,
        token: getToken() ?? "",
        lastSeq: () => lastSeq(liveRef.current.rows),
        onEvent: (event) => {
          if (page.current.takes?.(event)) return;
          const before = liveRef.current;
          update((s) => applyEvent(s, event));
          // A row not held before (a replayed one changes nothing).
          if (event.event === "message" && liveRef.current.rows !== before.rows) {
            const added = liveRef.current.rows.filter((r) => r.seq > lastSeq(before.rows));
            for (const row of added) page.current.onRow?.(row);
          }
          page.current.applied?.(event, before, liveRef.current);
        },
        beforeReconnect: async () => {
          const rows = await loadRows(runId, lastSeq(liveRef.current.rows));
          update((s) => withRows(s, rows));
          await page.current.reloaded?.();
        },
        onConnection: setConnection,
        notice,
        onFatal: streamRefused("run", setFailure),
      });
      if (stopped) stream.close();
    })();
    return () => {
      stopped = true;
      stream?.close();
    };
  }, [runId]);

  return { live, failure, connection, update };
}
