/**
 * For tests of a command's timeout that need the command to have printed something before
 * it is killed (its pid, its "started" line, a trap installed). A loaded machine may not
 * even start bash within a short timeout, and a kill before the print is not what such a
 * test is about. So the command runs with the first timeout; when it did not print in time,
 * it runs again with the next, longer one. The last run is returned whatever it printed,
 * for the test's own assertions to fail on: a timeout that loses output still fails.
 *
 * @example
 *   const { result, timeoutMs } = await printedBeforeTimeout(
 *     (ms) => exec({ command: "echo started; sleep 30", timeoutMs: ms }),
 *     (r) => r.output.startsWith("started"),
 *   );
 */
export async function printedBeforeTimeout<T>(
  run: (timeoutMs: number) => Promise<T>,
  printed: (result: T) => boolean,
  timeoutsMs: readonly number[] = PRINTED_BEFORE_TIMEOUT_MS,
): Promise<{ result: T; timeoutMs: number }> {
  let last: { result: T; timeoutMs: number } | undefined;
  for (const timeoutMs of timeoutsMs) {
    last = { result: await run(timeoutMs), timeoutMs };
    if (printed(last.result)) return last;
  }
  if (!last) throw new Error("printedBeforeTimeout needs at least one timeout");
  return last;
}

/** The timeouts tried in turn: 5 s is plenty on a quiet machine, 20 s on one at a load of 8. */
export const PRINTED_BEFORE_TIMEOUT_MS = [5_000, 10_000, 20_000] as const;

/** A test's own time limit that covers every try, with room for what it does after. */
export const PRINTED_BEFORE_TIMEOUT_TEST_MS = 90_000;
