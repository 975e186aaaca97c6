/**
 * Calls `tick` now and again `everyMs` after each one ends, while the page is visible: a
 * hidden tab asks nothing, and becoming visible asks at once. One tick at a time, so
 * becoming visible while one is on its way starts no second loop.
 *
 * @example useEffect(() => pollWhileVisible(() => reload(), 2_500), [id]);
 * @returns a stop function (an effect's cleanup)
 */
export function pollWhileVisible(tick: () => Promise<void>, everyMs: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let ticking = false;
  const poll = async () => {
    clearTimeout(timer);
    if (ticking) return;
    ticking = true;
    try {
      await tick();
    } finally {
      ticking = false;
    }
    if (!stopped && document.visibilityState === "visible") timer = setTimeout(poll, everyMs);
  };
  const onVisibility = () => {
    if (document.visibilityState === "visible") void poll();
    else clearTimeout(timer);
  };
  void poll();
  document.addEventListener("visibilitychange", onVisibility);
  return () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener("visibilitychange", onVisibility);
  };
}
