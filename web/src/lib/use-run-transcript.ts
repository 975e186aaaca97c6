import { useEffect, useRef, useState } from "preact/hooks";
import { loadRows, type Row, streamRefused } from "./api";
import { getToken } from "./auth";
import { applyEvent, emptyLiveRun, type LiveRun, withRows } from "./live-run";
import { type ConnectionState, openRunStream } from "./run-stream";
import { lastSeq } from "./sse";
import { failureNotice, retryingNotice, untilAvailable } from "./unavailable";

/**
 * A run's transcript held live, as the run page holds it: the rows from history, then
 * GET /api/runs/:id/events (rows, token deltas, status), each seq once, reloading what it
 * missed after a drop; while the database does not answer it says so and reads again after
 * the answer's Retry-After. `onRow` hears each committed row that arrives live (a user row: a
 * task message was delivered).
 */
export function useRunTranscript(runId: string, onRow?: (row: Row) => void) {
  const [live, setLive] = useState<LiveRun>(emptyLiveRun);
  const [failure, setFailure] = useState<string | null>(null);
  const [connection, setConnection] = useState<ConnectionState>("connecting");
  // The state as of the last event, read synchronously by the stream (lastSeq).
  const liveRef = useRef<LiveRun>(live);
  const rowHeard = useRef(onRow);
  rowHeard.current = onRow;
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
        const rows = await untilAvailable(
          () => loadRows(runId),
          notice,
          () => stopped,
        );
        if (stopped) return;
        update((s) => withRows(s, rows));
      } catch (e) {
        if (!stopped) setFailure(e instanceof Error ? e.message : String(e));
        return;
      }
      stream = openRunStream({
        runId,
        token: getToken() ?? "",
        lastSeq: () => lastSeq(liveRef.current.rows),
        onEvent: (event) => {
          const before = liveRef.current.rows;
          update((s) => applyEvent(s, event));
          // A row not held before (a replayed one changes nothing).
          if (event.event === "message" && liveRef.current.rows !== before) {
            const added = liveRef.current.rows.filter((r) => r.seq > lastSeq(before));
            for (const row of added) rowHeard.current?.(row);
          }
        },
        beforeReconnect: async () => {
          const rows = await loadRows(runId, lastSeq(liveRef.current.rows));
          update((s) => withRows(s, rows));
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

  return { live, failure, connection };
}
