/**
 * The workspace size: apparent bytes of every file under a root, like `du -sb`, minus the
 * caches of cache-exclusions.ts. Directories are read in parallel (10k files take well under
 * a second); hard links count once; symbolic links count as themselves and are not followed.
 */
import { lstat, opendir } from "node:fs/promises";
import { join } from "node:path";
import { isExcludedDir } from "./cache-exclusions";

export interface WorkspaceSize {
  bytes: number;
  files: number;
}

/** Measures `root` (an existing directory); `skip` names the caches not counted. */
export async function measureWorkspace(root: string, skip: (segments: readonly string[]) => boolean = isExcludedDir): Promise<WorkspaceSize> {
  const total: WorkspaceSize = { bytes: 0, files: 0 };
  const seen = new Set<string>();

  async function walk(dir: string, segments: string[]): Promise<void> {
    let handle: Awaited<ReturnType<typeof opendir>>;
    try {
      handle = await opendir(dir);
    } catch {
      return; // vanished or unreadable while walking: counts as nothing
    }
    const pending: Promise<void>[] = [];
    for await (const entry of handle) {
      const path = join(dir, entry.name);
      const inner = [...segments, entry.name];
      if (entry.isDirectory()) {
        if (!skip(inner)) pending.push(walk(path, inner));
        continue;
      }
      pending.push(
        lstat(path).then(
          (st) => {
            if (st.nlink > 1) {
              const key = `${st.dev}:${st.ino}`;
              if (seen.has(key)) return;
              seen.add(key);
            }
            total.bytes += st.size;
            total.files += 1;
          },
          () => undefined,
        ),
      );
    }
    await Promise.all(pending);
  }

  await walk(root, []);
  return total;
}
