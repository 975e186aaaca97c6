import { useEffect, useRef, useState } from "preact/hooks";
import { describe } from "./api";
import { failureNotice, retryingNotice, untilAvailable } from "./unavailable";

/**
 * A read made on demand (a panel opened, a preview asked for) and the failure it leaves to
 * show. While the database does not answer, `error` says it is retrying and the read is made
 * again after each Retry-After; then `read` gives the answer, or null with `error` saying
 * why there is none. The retries end with the component.
 *
 * @example const { error, read } = useRead();
 *   const replay = await read(() => unwrap(api.GET("/api/runs/{id}/messages/{seq}/prompt", …)));
 */
export function useRead() {
  const [error, setError] = useState<string | null>(null);
  const [notice] = useState(() => retryingNotice(failureNotice(setError)));
  const gone = useRef(false);
  useEffect(
    () => () => {
      gone.current = true;
    },
    [],
  );
  const read = async <T>(load: () => Promise<T>): Promise<T | null> => {
    setError(null);
    try {
      return await untilAvailable(load, notice, () => gone.current);
    } catch (e) {
      if (!gone.current) setError(describe(e));
      return null;
    }
  };
  return { error, setError, read };
}
