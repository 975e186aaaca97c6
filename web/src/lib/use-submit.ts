import { useState } from "preact/hooks";
import { ApiError, describe } from "./api";

/**
 * The state of a form that saves through the API: `run(action)` clears the last errors,
 * marks the form busy, and puts a 422's messages on the fields they name
 * (`errors[field]`) and any other failure in `failure`.
 *
 * @example
 *   const form = useSubmit();
 *   <form onSubmit={(e) => { e.preventDefault(); void form.run(() => save()); }}>
 */
export function useSubmit() {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setErrors({});
    setFailure(null);
    try {
      await action();
    } catch (e) {
      if (e instanceof ApiError && e.code === "validation.failed") setErrors(e.fieldErrors());
      else setFailure(describe(e));
    } finally {
      setBusy(false);
    }
  };
  return { errors, failure, setFailure, busy, run };
}
