/**
 * The work's result, or a rejection as soon as `signal` aborts (with the signal's reason, or an
 * AbortError): for work that may ignore its signal or hang (a tool, a call to a box that died),
 * whose caller must move on. The work itself goes on in the background; its result is dropped.
 *
 * @example
 *   await untilAborted(guest.health(), AbortSignal.timeout(30_000)) // rejects after 30 s at most
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  const aborted = () => (signal.reason instanceof Error ? signal.reason : new DOMException("cancelled", "AbortError"));
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
