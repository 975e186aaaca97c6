/**
 * The task volume (TASK-036): `GET /volume/archive` streams a zstd tar of the volume (default
 * `/data`), `PUT /volume/restore` makes the volume exactly an archive's content. Both as the
 * home's archive (home-archive.ts: same lock, same cap from `max_bytes` bounded by the guest's
 * ceiling, same streaming), without the home's browser handling and cache exclusions: the
 * volume is a cache already, and its workspace's dependencies are what it is for.
 *
 * A restore is bounded like the home's (cap on the compressed size, declared or streamed;
 * unpacked in a staging folder, so a bad archive leaves the volume as it was), and, the
 * archive being untrusted: GNU tar keeps every entry inside the staging folder (no absolute
 * names, no `..`, links created last), files belong to the guest's user (`--no-same-owner`, so
 * git accepts the workspace as its own), and anything that is not a file, a folder or a
 * symbolic link (devices, FIFOs) is dropped, as are set-user-ID and set-group-ID bits.
 */
import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, readdir, rename, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { exclusive, extractCapped, openArchive, sendArchive } from "./home-archive";
import { archiveCap } from "./home-state";
import { sendError, sendJson } from "./http-util";
import type { GuestRoute } from "./services-routes";
import { measureWorkspace } from "./workspace-size";

/** The task volume's mount point in the box. */
export const DEFAULT_VOLUME = "/data";

/** Staging folders of restores live inside the volume (one filesystem for the final moves). */
const STAGING_PREFIX = ".volume-restore-";
const isStaging = (segments: readonly string[]) => segments.length === 1 && segments[0]!.startsWith(STAGING_PREFIX);

export interface VolumeOptions {
  root: string;
  /** The guest's ceiling for an archive (GUEST_MAX_ARCHIVE_BYTES); `max_bytes` may only lower it. */
  maxArchiveBytes: number;
}

/** Removes what a volume must not hold; → how many entries went. */
async function dropSpecial(dir: string): Promise<number> {
  let dropped = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) dropped += await dropSpecial(path);
    if (entry.isSymbolicLink()) continue;
    if (!entry.isDirectory() && !entry.isFile()) {
      await rm(path, { force: true });
      dropped++;
      continue;
    }
    const { mode } = await lstat(path);
    if (mode & 0o6000) await chmod(path, mode & 0o1777);
  }
  return dropped;
}

/** With `part=git`, the workspace's git directory alone: a repository's seed needs its objects, not its work tree. */
const outsideGit = (segments: readonly string[]) => segments[0] !== "workspace" || (segments.length > 1 && segments[1] !== ".git");

export function getVolumeArchive(res: ServerResponse, url: URL, options: VolumeOptions): Promise<void> {
  const cap = archiveCap(url, options.maxArchiveBytes);
  const skip = url.searchParams.get("part") === "git" ? (segments: readonly string[]) => isStaging(segments) || outsideGit(segments) : isStaging;
  return exclusive(() => sendArchive(res, () => openArchive(options.root, cap, skip)));
}

export function putVolumeRestore(req: IncomingMessage, res: ServerResponse, url: URL, options: VolumeOptions): Promise<void> {
  const cap = archiveCap(url, options.maxArchiveBytes);
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > cap) {
    return Promise.resolve(sendError(res, 413, "archive.too_large", `archive is over the ${cap}-byte limit`));
  }
  return exclusive(async () => {
    await mkdir(options.root, { recursive: true });
    // A restore cut off (the guest killed) leaves its staging folder; it is nobody's now.
    for (const name of await readdir(options.root)) if (name.startsWith(STAGING_PREFIX)) await rm(join(options.root, name), { recursive: true, force: true });
    const staging = join(options.root, `${STAGING_PREFIX}${randomBytes(6).toString("hex")}`);
    await mkdir(staging, { mode: 0o700 });
    let answer: () => void;
    try {
      answer = await restoreThrough(staging, req, cap, options.root, res);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    answer();
  });
}

/** Unpacks into `staging` and makes the volume its content; → the answer, sent once staging is gone. */
async function restoreThrough(staging: string, req: IncomingMessage, cap: number, root: string, res: ServerResponse): Promise<() => void> {
  const { tooLarge, code, stderr } = await extractCapped(req, staging, cap, ["--no-same-owner"]);
  if (tooLarge) return () => sendError(res, 413, "archive.too_large", `archive is over the ${cap}-byte limit`);
  if (code !== 0) return () => sendError(res, 400, "archive.invalid", `not a readable zstd tar archive: ${stderr || `tar exited with ${code}`}`);
  const dropped = await dropSpecial(staging);
  const restored = await measureWorkspace(staging, () => false);
  // The volume becomes the archive: what it held before goes (it is one task's cache).
  for (const name of await readdir(root)) if (!name.startsWith(STAGING_PREFIX)) await rm(join(root, name), { recursive: true, force: true });
  for (const name of await readdir(staging)) await rename(join(staging, name), join(root, name));
  return () => sendJson(res, 200, { bytes: restored.bytes, files: restored.files, dropped });
}

export function volumeRoutes(options: VolumeOptions): Map<string, GuestRoute> {
  return new Map<string, GuestRoute>([
    ["GET /volume/archive", (_req, res, url) => getVolumeArchive(res, url, options)],
    ["PUT /volume/restore", (req, res, url) => putVolumeRestore(req, res, url, options)],
  ]);
}
