/**
 * The home archive: `GET /home/archive` streams a zstd-compressed tar of the home (caches
 * skipped as for the workspace size, Chromium stopped first so its profile is consistent),
 * cut off past the request's `max_bytes`; `PUT /home/archive` restores one under the same
 * cap. A restore extracts into a staging folder beside the home
 * and merges it in only once the whole archive has unpacked, so a corrupt or oversized body
 * leaves the home as it was.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lstat, mkdir, opendir, readdir, rename, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { basename, dirname, join } from "node:path";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { isExcludedDir } from "./cache-exclusions";
import { archiveCap, type HomeState } from "./home-state";
import { sendError, sendJson } from "./http-util";
import type { Services } from "./services";
import { measureWorkspace } from "./workspace-size";

export interface HomeArchiveOptions {
  home: string;
  services: Services;
  /** The guest's ceiling for an archive; the platform's `max_bytes` of a request may only lower it. */
  maxArchiveBytes: number;
  state: HomeState;
}

/** Chromium's lock files: they name the box that ran it and would block the next one. */
const isProfileLock = (segments: readonly string[]) => segments.length === 2 && segments[0] === ".browser" && segments[1]!.startsWith("Singleton");

/** What a home archive leaves out: caches and Chromium's lock files. */
const homeSkip = (segments: readonly string[], isDirectory: boolean) => (isDirectory ? isExcludedDir(segments) : isProfileLock(segments));

/**
 * Every entry to archive, relative to `root`, directories included (so empty ones and their
 * modes survive): what `skip` names left out (by default the home's caches and Chromium's
 * lock files), symbolic links not followed.
 */
export async function archiveEntries(root: string, skip: (segments: readonly string[], isDirectory: boolean) => boolean = homeSkip): Promise<string[]> {
  const entries: string[] = [];
  async function walk(dir: string, segments: string[]): Promise<void> {
    const handle = await opendir(dir).catch(() => undefined);
    if (!handle) return;
    for await (const entry of handle) {
      const inner = [...segments, entry.name];
      if (skip(inner, entry.isDirectory())) continue;
      entries.push(inner.join("/"));
      if (entry.isDirectory()) await walk(join(dir, entry.name), inner);
    }
  }
  await walk(root, []);
  return entries;
}

/** Runs tar; resolves with its exit code and the end of its error output. */
export function tar(
  args: string[],
  input: string | undefined,
  output: "pipe" | "ignore" = "ignore",
): { done: Promise<{ code: number | null; stderr: string }>; stdin: NodeJS.WritableStream; stdout: Readable | null; kill: () => void } {
  const child = spawn("tar", args, { stdio: ["pipe", output, "pipe"] }) as ChildProcessByStdio<Writable, Readable | null, Readable>;
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
  return { done, stdin: child.stdin, stdout: child.stdout, kill: () => child.kill("SIGKILL") };
}

/**
 * Archives and restores (the home's and the volume's) share one lock: a save never reads a
 * tree a restore is rewriting.
 */
let busy: Promise<unknown> = Promise.resolve();
export function exclusive<T>(task: () => Promise<T>): Promise<T> {
  const next = busy.then(task, task);
  busy = next.catch(() => undefined);
  return next;
}

/** The archive grew past the cap the platform set: nothing of it may be stored. */
export class ArchiveTooLarge extends Error {
  constructor(readonly cap: number) {
    super(`the home's archive is over its ${cap}-byte limit`);
  }
}

/**
 * The home's archive as it is compressed, straight from tar's output: no copy on the box's
 * disk, so a full disk does not stop a save. Once past `cap` it yields the chunk that
 * passed it, then throws ArchiveTooLarge and stops tar: what was sent is over the cap, so
 * the reader knows why it must refuse it. A failing tar throws its own error.
 */
async function* archiveChunks(home: string, entries: string[], cap: number): AsyncGenerator<Buffer> {
  const run = tar(
    ["--create", "--zstd", "--file=-", "--directory", home, "--no-recursion", "--null", "--files-from=-", "--ignore-failed-read"],
    `${entries.join("\0")}\0`,
    "pipe",
  );
  let size = 0;
  let ended = false;
  try {
    for await (const chunk of run.stdout as AsyncIterable<Buffer>) {
      size += chunk.length;
      yield chunk;
      if (size > cap) throw new ArchiveTooLarge(cap);
    }
    ended = true;
  } finally {
    if (!ended) run.kill();
  }
  const { code, stderr } = await run.done;
  // 1: a file changed or vanished while it was read; the archive is still whole.
  if (code !== 0 && code !== 1) throw new Error(`tar failed (${code}): ${stderr}`);
}

/** The archive's chunks with its entry count; the first chunk is read, so an immediate failure throws here. */
export async function openArchive(
  home: string,
  cap: number,
  skip?: (segments: readonly string[], isDirectory: boolean) => boolean,
): Promise<{ chunks: AsyncGenerator<Buffer>; entries: number }> {
  await mkdir(home, { recursive: true });
  const entries = await archiveEntries(home, skip);
  const source = archiveChunks(home, entries, cap);
  const first = await source.next();
  if (!first.done && first.value.length > cap) {
    await source.return(undefined);
    throw new ArchiveTooLarge(cap);
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    if (first.done) return;
    yield first.value;
    yield* source;
  }
  return { chunks: chunks(), entries: entries.length };
}

/**
 * Answers with an archive as it is made. Streamed without a length: past the cap the answer
 * ends after the chunk that passed it (the reader counts, and refuses it as over the cap); a
 * failing tar cuts the connection, which the reader sees as an error, never as an end.
 */
export async function sendArchive(res: ServerResponse, open: () => ReturnType<typeof openArchive>): Promise<void> {
  let archive: Awaited<ReturnType<typeof openArchive>>;
  try {
    archive = await open();
  } catch (err) {
    if (err instanceof ArchiveTooLarge) return sendError(res, 413, "workspace.full", err.message);
    return sendError(res, 500, "archive.failed", (err as Error).message);
  }
  res.writeHead(200, { "content-type": "application/zstd", "x-archive-entries": archive.entries, "cache-control": "no-store" });
  try {
    for await (const chunk of archive.chunks) {
      if (!res.write(chunk)) await drained(res);
      if (res.destroyed) break;
    }
    res.end();
  } catch (err) {
    if (err instanceof ArchiveTooLarge) res.end();
    else res.destroy(err as Error);
  }
}

export function getHomeArchive(res: ServerResponse, url: URL, options: HomeArchiveOptions): Promise<void> {
  const cap = archiveCap(url, options.maxArchiveBytes);
  return exclusive(async () => {
    const language = options.services.browserLanguage();
    await options.services.stopBrowser();
    try {
      await sendArchive(res, () => openArchive(options.home, cap));
    } finally {
      // A periodic save must not close the operator's browser; a save before the box is
      // destroyed says so and leaves it stopped.
      if (language && url.searchParams.get("resume_browser") !== "false") options.services.start(true, language).catch(() => undefined);
    }
  });
}

/**
 * The save on shutdown: when the platform stops the box (SIGTERM, with minutes of grace) no
 * one pulls the archive, so the guest pushes it to `url` (an address the sandbox's Worker
 * answers; the box holds no storage key). Only once the home was restored: a box stopped
 * before that would push an empty home over the saved one. → bytes sent, or why not.
 */
export function pushHomeArchive(
  url: string,
  options: Pick<HomeArchiveOptions, "home" | "services" | "state">,
  timeoutMs: number,
): Promise<{ bytes: number } | { error: string }> {
  if (!options.state.ready) return Promise.resolve({ error: "the home was never restored, so the saved one is kept" });
  return exclusive(async () => {
    await options.services.stopBrowser();
    let bytes = 0;
    try {
      const archive = await openArchive(options.home, options.state.cap);
      const counted = (async function* () {
        for await (const chunk of archive.chunks) {
          bytes += chunk.length;
          yield chunk;
        }
      })();
      const res = await fetch(url, {
        method: "PUT",
        headers: { "content-type": "application/zstd", "x-archive-entries": String(archive.entries) },
        body: Readable.toWeb(Readable.from(counted)) as ReadableStream<Uint8Array>,
        duplex: "half",
        signal: AbortSignal.timeout(timeoutMs),
      } as RequestInit);
      await res.arrayBuffer().catch(() => undefined);
      return res.ok ? { bytes } : { error: `the save address answered ${res.status}` };
    } catch (err) {
      return { error: (err as Error).message };
    }
  });
}

/** Resolves once `res` can take more, or is gone (the reader hung up). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

/** `POST /home/ready`: there was no saved home to restore; the home as it is counts as restored. */
export function homeReady(res: ServerResponse, url: URL, options: HomeArchiveOptions): void {
  options.state.markReady(archiveCap(url, options.maxArchiveBytes));
  sendJson(res, 200, { ready: true });
}

export function putHomeArchive(req: IncomingMessage, res: ServerResponse, url: URL, options: HomeArchiveOptions): Promise<void> {
  const cap = archiveCap(url, options.maxArchiveBytes);
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > cap) {
    return Promise.resolve(sendError(res, 413, "archive.too_large", `archive is over the ${cap}-byte limit`));
  }
  return exclusive(async () => {
    await options.services.stopBrowser();
    const staging = join(dirname(options.home), `.${basename(options.home)}.restore-${randomBytes(6).toString("hex")}`);
    await mkdir(staging, { recursive: true });
    let answer: () => void;
    try {
      answer = await restoreThrough(staging, req, cap, options, res);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    answer();
  });
}

/** Unpacks the request's zstd tar into `staging`, stopping once more than `cap` bytes came. */
export async function extractCapped(
  req: IncomingMessage,
  staging: string,
  cap: number,
  tarArgs: string[] = [],
): Promise<{ tooLarge: boolean; code: number | null; stderr: string }> {
  const run = tar(["--extract", "--zstd", "--file=-", "--directory", staging, ...tarArgs], undefined);
  let size = 0;
  let tooLarge = false;
  try {
    await pipeline(
      req,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          size += chunk.length;
          if (size > cap) {
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
  return { tooLarge, code, stderr };
}

/** Extracts into `staging` and merges it into the home; → the answer, sent once staging is gone. */
async function restoreThrough(staging: string, req: IncomingMessage, cap: number, options: HomeArchiveOptions, res: ServerResponse): Promise<() => void> {
  const { tooLarge, code, stderr } = await extractCapped(req, staging, cap);
  if (tooLarge) return () => sendError(res, 413, "archive.too_large", `archive is over the ${cap}-byte limit`);
  if (code !== 0) return () => sendError(res, 400, "archive.invalid", `not a readable zstd tar archive: ${stderr || `tar exited with ${code}`}`);
  const restored = await measureWorkspace(staging);
  await mkdir(options.home, { recursive: true });
  await mergeInto(staging, options.home);
  options.state.markReady(cap);
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
