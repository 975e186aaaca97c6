import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { O200K_ASSET_PATH } from "../../core/projection/rank-asset";
import { ROOT } from "./wrangler";

/** Newest modification time (ms) of the files under `dir`, skipping `skip` folders. */
function newestMtime(dir: string, skip: Set<string>): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, skip));
    else if (entry.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Whether the console in `webDir/dist` is missing, lacks the token counter's rank table
 * (builds before it was an asset), or is older than a source file of `webDir` (src,
 * public, index.html, its Vite config).
 *
 * @example consoleBuildNeeded(join(ROOT, "web")) // true on a fresh clone
 */
export function consoleBuildNeeded(webDir: string): boolean {
  const built = join(webDir, "dist", "index.html");
  if (!existsSync(built) || !existsSync(join(webDir, "dist", O200K_ASSET_PATH))) return true;
  return newestMtime(webDir, new Set(["dist", "node_modules"])) > statSync(built).mtimeMs;
}

/**
 * Builds the console (`vite build web`, as `npm run build` does) when it is missing or
 * stale, so `wrangler dev` serves the current sources. Quiet when nothing changed.
 */
export async function ensureConsoleBuilt(log: (line: string) => void, webDir = join(ROOT, "web")): Promise<void> {
  if (!consoleBuildNeeded(webDir)) return;
  log("building the console (web/dist)");
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "node_modules/vite/bin/vite.js"), "build", webDir, "--logLevel", "warn"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    child.once("error", reject);
    child.once("exit", resolve);
  });
  if (code !== 0) throw new Error(`the console build failed (vite exited with ${code}):\n${output.join("").slice(-4000)}`);
}
