/**
 * Caches that do not count toward the workspace size (and that a home archive may skip):
 * Chromium's caches under the browser profile and the XDG cache directory of the home.
 * Everything there is rebuilt on demand.
 */

/** Directory names that are caches anywhere under `.browser/` (Chromium's profile). */
export const BROWSER_CACHE_DIRS: readonly string[] = ["Cache", "Code Cache", "GPUCache", "GrShaderCache", "ShaderCache", "DawnCache"];

/** Directories at the top of the measured tree that are caches. */
export const TOP_LEVEL_CACHE_DIRS: readonly string[] = [".cache"];

/**
 * Whether a directory, given by its path segments relative to the measured root, is a cache.
 *
 * @example isExcludedDir([".browser", "Default", "Cache"]) // true
 * @example isExcludedDir(["project", "Cache"])             // false: only inside .browser
 * @example isExcludedDir([".cache"])                       // true
 */
export function isExcludedDir(segments: readonly string[]): boolean {
  const name = segments.at(-1);
  if (name === undefined) return false;
  if (segments.length === 1 && TOP_LEVEL_CACHE_DIRS.includes(name)) return true;
  return segments.length >= 2 && segments[0] === ".browser" && BROWSER_CACHE_DIRS.includes(name);
}
