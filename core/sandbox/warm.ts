/**
 * The warm pool's pure rules: how many started boxes each image keeps waiting, and the
 * names their Container objects go by. A warm box's name never equals a holder's (an agent
 * id or `task:<id>`), so the name alone never vouches for a box (holder.ts asks the box).
 */
import type { Box } from "./metadata";

/** More than this many idle boxes per image is a typo, not a plan: each is billed while it runs. */
export const MAX_WARM_BOXES = 20;

/**
 * The pool size a setting asks for (SANDBOX_WARM_LITE, SANDBOX_WARM_STANDARD): unset means
 * `fallback`; anything but an integer from 0 to MAX_WARM_BOXES is an error message naming it.
 *
 * @example warmPoolSize("SANDBOX_WARM_LITE", "2", 0) // 2
 * @example warmPoolSize("SANDBOX_WARM_LITE", "lots", 0) // "SANDBOX_WARM_LITE must be …"
 */
export function warmPoolSize(name: string, value: string | undefined, fallback: number): number | string {
  if (value === undefined || value.trim() === "") return fallback;
  const size = Number(value);
  if (!Number.isInteger(size) || size < 0 || size > MAX_WARM_BOXES) {
    return `${name} must be an integer from 0 to ${MAX_WARM_BOXES} (boxes kept started per image), not ${JSON.stringify(value.slice(0, 40))}`;
  }
  return size;
}

/** The setting that sizes a box's pool. */
export const warmSetting = (box: Box) => (box === "lite" ? "SANDBOX_WARM_LITE" : "SANDBOX_WARM_STANDARD");

/**
 * A fresh name for a warm box's Container object.
 *
 * @example warmBoxName("lite", "4b1d…") // "warm:lite:4b1d…"
 */
export const warmBoxName = (box: Box, id: string) => `warm:${box}:${id}`;
