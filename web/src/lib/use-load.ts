import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { describeRead } from "./api";
import { Latest } from "./latest";
import { retryAfterMs } from "./unavailable";

/**
 * Loads data for a view: `{data, error, loading, reload}`. The loader runs again when
 * the keys change. Only the newest load's answer lands: a load started before it is
 * aborted through the signal it was given, and its answer is dropped if it comes anyway,
 * so a slow answer for old keys never overwrites the newer keys' data. While the database
 * does not answer (503 database.unavailable) the view says so and loads again after the
 * answer's Retry-After, instead of showing a bare failure.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, keys: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef<Latest | null>(null);
  latest.current ??= new Latest();
  const retry = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, keys);
  const reload = useCallback(async () => {
    clearTimeout(retry.current);
    const ticket = latest.current!.begin();
    setLoading(true);
    try {
      const value = await run(ticket.signal);
      if (!ticket.current()) return;
      setData(value);
      setError(null);
    } catch (e) {
      if (!ticket.current()) return;
      setError(describeRead(e));
      const wait = retryAfterMs(e);
      if (wait !== null) retry.current = setTimeout(() => void reload(), wait);
    } finally {
      if (ticket.current()) setLoading(false);
    }
  }, [run]);
  useEffect(() => {
    void reload();
    return () => clearTimeout(retry.current);
  }, [reload]);
  useEffect(() => () => latest.current?.cancel(), []);
  return { data, setData, error, loading, reload };
}
