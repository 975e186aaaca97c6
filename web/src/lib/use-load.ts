import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { describe } from "./api";
import { isDatabaseUnavailable, RETRYING_MESSAGE, retryDelayMs } from "./unavailable";

/**
 * Loads data for a view: `{data, error, loading, reload}`. The loader runs again when
 * the keys change. While the database does not answer (503 database.unavailable) the view
 * says so and loads again after the answer's Retry-After, instead of showing a bare failure.
 */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const retry = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, keys);
  const reload = useCallback(async () => {
    clearTimeout(retry.current);
    setLoading(true);
    try {
      setData(await run());
      setError(null);
    } catch (e) {
      if (isDatabaseUnavailable(e)) {
        setError(RETRYING_MESSAGE);
        retry.current = setTimeout(() => void reload(), retryDelayMs(e));
      } else setError(describe(e));
    } finally {
      setLoading(false);
    }
  }, [run]);
  useEffect(() => {
    void reload();
    return () => clearTimeout(retry.current);
  }, [reload]);
  return { data, setData, error, loading, reload };
}
