/**
 * The home archive: `GET /home/archive` answers a zstd-compressed tar of the home (caches
 * skipped as for the workspace size, Chromium stopped first so its profile is consistent);
 * `PUT /home/archive` restores one. A restore extracts into a staging folder beside the home
 * and merges it in only once the whole archive has unpacked, so a corrupt or oversized body
 * leaves the home as it was.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, mkdir, opendir, readdir, rename, rm, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { isExcludedDir } from "./cache-exclusions";
import { sendError, sendJson } from "./http-util";
import type { Services } from "./services";
import { measureWorkspace } from "./workspace-size";

export interface HomeArchiveOptions {
  home: string;
  services: Services;
  /** The largest archive a restore accepts. */
  maxArchiveBytes: number;
}

/** Chromium's lock files: they name the box that ran it and would block the next one. */
const isProfileLock = (segments: readonly string[]) => segments.length === 2 && segments[0] === ".browser" && segments[1]!.startsWith("Singleton");

/**
 * Every entry to archive, relative to `root`, directories included (so empty ones and their
 * modes survive): caches and Chromium's lock files skipped, symbolic links not followed.
 */
export async function archiveEntries(root: string): Promise<string[]> {
  const entries: string[] = [];
  async function walk(dir: string, segments: string[]): Promise<void> {
    const handle = await opendir(dir).catch(() => undefined);
    if (!handle) return;
    for await (const entry of handle) {
      const inner = [...segments, entry.name];
      if (entry.isDirectory() ? isExcludedDir(inner) : isProfileLock(inner)) continue;
      entries.push(inner.join("/"));
      if (entry.isDirectory()) await walk(join(dir, entry.name), inner);
    }
  }
  await walk(root, []);
  return entries;
}

/** Runs tar; resolves with its exit code and the end of its error output. */
function tar(
  args: string[],
  input: string | NodeJS.ReadableStream | undefined,
): { done: Promise<{ code: number | null; stderr: string }>; stdin: NodeJS.WritableStream; kill: () => void } {
  const child = spawn("tar", args, { stdio: ["pipe", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2_000);
  });
  child.stdin.on("error", () => undefined); // tar gave up early: its exit code says why
  if (typeof input === "string") child.stdin.end(input);
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) => {
    child.once("error", (err) => resolve({ code: null, stderr: err.message }));
    child.once("close", (code) => resolve({ code, stderr: stderr.trim() }));
  });
  return { done, stdin: child.stdin, kill: () => child.kill("SIGKILL") };
}

/** Home archive and restore share one lock: a save never reads a home a restore is rewriting. */
let busy: Promise<unknown> = Promise.resolve();
function exclusive<T>(task: () => Promise<T>): Promise<T> {
  const next = busy.then(task, task);
  busy = next.catch(() => undefined);
  return next;
}

/** Writes the home's archive to a temp file. → the file (the caller removes it) and its entry count. */
async function writeArchive(home: string): Promise<{ file: string; entries: number } | { error: string }> {
  const file = join(tmpdir(), `home-archive-${randomBytes(6).toString("hex")}.tar.zst`);
  await mkdir(home, { recursive: true });
  const entries = await archiveEntries(home);
  const run = tar(
    ["--create", "--zstd", "--file", file, "--directory", home, "--no-recursion", "--null", "--files-from=-", "--ignore-failed-read"],
    `${entries.join("\0")}\0`,
  );
  const { code, stderr } = await run.done;
  // 1: a file changed or vanished while it was read; the archive is still whole.
  if (code !== 0 && code !== 1) {
    await rm(file, { force: true });
    return { error: `tar failed (${code}): ${stderr}` };
  }
  return { file, entries: entries.length };
}

export function getHomeArchive(res: ServerResponse, url: URL, options: HomeArchiveOptions): Promise<void> {
  return exclusive(async () => {
    const language = options.services.browserLanguage();
    await options.services.stopBrowser();
    // Written to a file first: the answer then has a length (R2 wants one) and a status
    // that tells the truth about the whole archive.
    const archive = await writeArchive(options.home);
    try {
      if ("error" in archive) return sendError(res, 500, "archive.failed", archive.error);
      const size = (await stat(archive.file)).size;
      res.writeHead(200, { "content-type": "application/zstd", "content-length": size, "x-archive-entries": archive.entries, "cache-control": "no-store" });
      await pipeline(createReadStream(archive.file), res);
    } finally {
      if (!("error" in archive)) await rm(archive.file, { force: true });
      // A periodic save must not close the operator's browser; a save before the box is
      // destroyed says so and leaves it stopped.
      if (language && url.searchParams.get("resume_browser") !== "false") options.services.start(true, language).catch(() => undefined);
    }
  });
}

/**
 * The save on shutdown: when the platform stops the box (SIGTERM, with minutes of grace) no
 * one pulls the archive, so the guest pushes it to `url` (an address the sandbox's Worker
 * answers; the box holds no storage key). → bytes sent, or the reason it failed.
 */
export function pushHomeArchive(
  url: string,
  options: Pick<HomeArchiveOptions, "home" | "services">,
  timeoutMs: number,
): Promise<{ bytes: number } | { error: string }> {
  return exclusive(async () => {
    await options.services.stopBrowser();
    const archive = await writeArchive(options.home);
    if ("error" in archive) return archive;
    try {
      const size = (await stat(archive.file)).size;
      const res = await fetch(url, {
        method: "PUT",
        headers: { "content-type": "application/zstd", "content-length": String(size), "x-archive-entries": String(archive.entries) },
        body: Readable.toWeb(createReadStream(archive.file)) as ReadableStream<Uint8Array>,
        duplex: "half",
        signal: AbortSignal.timeout(timeoutMs),
      } as RequestInit);
      await res.arrayBuffer().catch(() => undefined);
      return res.ok ? { bytes: size } : { error: `the save address answered ${res.status}` };
    } catch (err) {
      return { error: (err as Error).message };
    } finally {
      await rm(archive.file, { force: true });
    }
  });
}

export function putHomeArchive(req: IncomingMessage, res: ServerResponse, options: HomeArchiveOptions): Promise<void> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > options.maxArchiveBytes) {
    return Promise.resolve(sendError(res, 413, "archive.too_large", `archive is over the ${options.maxArchiveBytes}-byte limit`));
  }
  return exclusive(async () => {
    await options.services.stopBrowser();
    const staging = join(dirname(options.home), `.${basename(options.home)}.restore-${randomBytes(6).toString("hex")}`);
    await mkdir(staging, { recursive: true });
    let answer: () => void;
    try {
      answer = await restoreThrough(staging, req, options, res);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    answer();
  });
}

/** Extracts into `staging` and merges it into the home; → the answer, sent once staging is gone. */
async function restoreThrough(staging: string, req: IncomingMessage, options: HomeArchiveOptions, res: ServerResponse): Promise<() => void> {
  const run = tar(["--extract", "--zstd", "--file=-", "--directory", staging], undefined);
  let size = 0;
  let tooLarge = false;
  try {
    await pipeline(
      req,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          size += chunk.length;
          if (size > options.maxArchiveBytes) {
            tooLarge = true;
            throw new Error("too large");
          }
          yield chunk;
        }
      },
      run.stdin,
    );
  } catch {
    run.kill();
  }
  const { code, stderr } = await run.done;
  if (tooLarge) return () => sendError(res, 413, "archive.too_large", `archive is over the ${options.maxArchiveBytes}-byte limit`);
  if (code !== 0) return () => sendError(res, 400, "archive.invalid", `not a readable zstd tar archive: ${stderr || `tar exited with ${code}`}`);
  const restored = await measureWorkspace(staging);
  await mkdir(options.home, { recursive: true });
  await mergeInto(staging, options.home);
  return () => sendJson(res, 200, { bytes: restored.bytes, files: restored.files });
}

/** Moves everything under `from` into `to`; the archive's entry wins where both have one. */
async function mergeInto(from: string, to: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    const existing = await lstat(target).catch(() => undefined);
    if (entry.isDirectory() && existing?.isDirectory()) {
      await mergeInto(source, target);
      continue;
    }
    if (existing) await rm(target, { recursive: true, force: true });
    await rename(source, target);
  }
}
