/**
 * Whether objects and arrays in a parsed JSON value nest more than `max` levels. It never
 * looks deeper than `max`, so it is safe on a value nested far past what the recursive
 * checks after it (and JSON.stringify) could walk without exhausting the stack.
 *
 * @example nestsDeeperThan({ a: [1] }, 1) // true
 * @example nestsDeeperThan({ a: [1] }, 2) // false
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (max === 0) return true;
  for (const child of Object.values(value)) if (nestsDeeperThan(child, max - 1)) return true;
  return false;
}
