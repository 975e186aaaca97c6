import { useCallback, useEffect, useState } from "preact/hooks";
import { describe } from "./api";

/**
 * Loads data for a view: `{data, error, loading, reload}`. The loader runs again when
 * the keys change.
 */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, keys);
  const reload = useCallback(async () => {
    setLoading(true);
    try {
      setData(await run());
      setError(null);
    } catch (e) {
      setError(describe(e));
    } finally {
      setLoading(false);
    }
  }, [run]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, setData, error, loading, reload };
}
