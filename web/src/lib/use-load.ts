import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { describe } from "./api";
import { Latest } from "./latest";

/**
 * Loads data for a view: `{data, error, loading, reload}`. The loader runs again when
 * the keys change. Only the newest load's answer lands: a load started before it is
 * aborted through the signal it was given, and its answer is dropped if it comes anyway,
 * so a slow answer for old keys never overwrites the newer keys' data.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, keys: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef<Latest | null>(null);
  latest.current ??= new Latest();
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, keys);
  const reload = useCallback(async () => {
    const ticket = latest.current!.begin();
    setLoading(true);
    try {
      const value = await run(ticket.signal);
      if (!ticket.current()) return;
      setData(value);
      setError(null);
    } catch (e) {
      if (ticket.current()) setError(describe(e));
    } finally {
      if (ticket.current()) setLoading(false);
    }
  }, [run]);
  useEffect(() => {
    void reload();
  }, [reload]);
  useEffect(() => () => latest.current?.cancel(), []);
  return { data, setData, error, loading, reload };
}
