/** The repository's files as the walk reads them (scripts/map/walk.ts takes any Reader). */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Reader } from "./walk";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Each file read once; undefined for one that is not there. */
export function repositoryReader(root = ROOT): Reader {
  const cache = new Map<string, string | undefined>();
  return (file) => {
    if (!cache.has(file)) {
      const full = join(root, file);
      cache.set(file, existsSync(full) ? readFileSync(full, "utf8") : undefined);
    }
    return cache.get(file);
  };
}
