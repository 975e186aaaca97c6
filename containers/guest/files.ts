/**
 * The file routes: write (atomically, through a sibling temp file, so a failed upload leaves
 * nothing half-written), read, delete, move that refuses to overwrite, and a directory's listing.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { link, lstat, mkdir, readdir, readFile, rename, rm, stat, unlink } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { readBody, sendError, sendJson } from "./http-util";
import { checkAbsolutePath } from "./paths";

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

function pathParam(url: URL, res: ServerResponse): string | undefined {
  const checked = checkAbsolutePath(url.searchParams.get("path"));
  if (!checked.ok) {
    sendError(res, 400, checked.code, checked.message);
    return undefined;
  }
  return checked.path;
}

export async function putFile(req: IncomingMessage, res: ServerResponse, url: URL, maxBytes: number): Promise<void> {
  const path = pathParam(url, res);
  if (!path) return;
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return sendError(res, 413, "file.too_large", `file is over the ${maxBytes}-byte limit`);
  try {
    if ((await stat(path)).isDirectory()) return sendError(res, 409, "path.is_directory", `${path} is a directory`);
  } catch {
    // missing: written below
  }
  try {
    await mkdir(dirname(path), { recursive: true });
  } catch (err) {
    return sendError(res, 409, "path.parent_not_directory", `cannot create the parent of ${path}: ${errno(err) ?? "error"}`);
  }
  const temp = `${path}.${randomBytes(6).toString("hex")}.part`;
  let size = 0;
  let tooLarge = false;
  try {
    const out = createWriteStream(temp, { flags: "wx" });
    await pipeline(
      req,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          size += chunk.length;
          if (size > maxBytes) {
            tooLarge = true;
            throw new Error("too large");
          }
          yield chunk;
        }
      },
      out,
    );
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    if (tooLarge) return sendError(res, 413, "file.too_large", `file is over the ${maxBytes}-byte limit`);
    return sendError(res, 500, "file.write_failed", `could not write ${path}: ${errno(err) ?? (err as Error).message}`);
  }
  sendJson(res, 200, { path, bytes: size });
}

export async function getFile(res: ServerResponse, url: URL, maxBytes: number): Promise<void> {
  const path = pathParam(url, res);
  if (!path) return;
  let size: number;
  try {
    const st = await stat(path);
    if (st.isDirectory()) return sendError(res, 409, "path.is_directory", `${path} is a directory`);
    if (!st.isFile()) return sendError(res, 409, "path.not_file", `${path} is not a regular file`);
    size = st.size;
  } catch {
    return sendError(res, 404, "file.not_found", `${path} does not exist`);
  }
  if (size > maxBytes) return sendError(res, 413, "file.too_large", `${path} is ${size} bytes, over the ${maxBytes}-byte limit`);
  res.writeHead(200, { "content-type": "application/octet-stream", "content-length": size });
  await pipeline(createReadStream(path), res).catch(() => res.destroy());
}

export async function deleteFile(res: ServerResponse, url: URL): Promise<void> {
  const path = pathParam(url, res);
  if (!path) return;
  try {
    const st = await lstat(path);
    if (st.isDirectory()) return sendError(res, 409, "path.is_directory", `${path} is a directory; only files are deleted`);
    await unlink(path);
  } catch (err) {
    if (errno(err) === "ENOENT") return sendError(res, 404, "file.not_found", `${path} does not exist`);
    return sendError(res, 500, "file.delete_failed", `could not delete ${path}: ${errno(err) ?? "error"}`);
  }
  sendJson(res, 200, { path, deleted: true });
}

export async function moveFile(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse((await readBody(req, 64 * 1024)).toString("utf8"));
  } catch {
    return sendError(res, 400, "move.invalid", "body must be JSON {from, to} under 64 KiB");
  }
  const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const from = checkAbsolutePath(typeof b.from === "string" ? b.from : undefined, "from");
  if (!from.ok) return sendError(res, 400, from.code, from.message);
  const to = checkAbsolutePath(typeof b.to === "string" ? b.to : undefined, "to");
  if (!to.ok) return sendError(res, 400, to.code, to.message);
  let source: Awaited<ReturnType<typeof lstat>>;
  try {
    source = await lstat(from.path);
  } catch {
    return sendError(res, 404, "file.not_found", `${from.path} does not exist`);
  }
  if (await exists(to.path)) return sendError(res, 409, "file.exists", `${to.path} already exists; move never overwrites`);
  try {
    await mkdir(dirname(to.path), { recursive: true });
    if (source.isDirectory()) {
      await rename(from.path, to.path);
    } else {
      // link() fails with EEXIST if the target appeared meanwhile: no overwrite even in a race.
      await link(from.path, to.path);
      await unlink(from.path);
    }
  } catch (err) {
    if (errno(err) === "EEXIST") return sendError(res, 409, "file.exists", `${to.path} already exists; move never overwrites`);
    return sendError(res, 500, "file.move_failed", `could not move ${from.path}: ${errno(err) ?? "error"}`);
  }
  sendJson(res, 200, { from: from.path, to: to.path });
}

/** Regular files up to this size carry their SHA-256 in a listing: enough for scripts and notes, cheap to read whole. */
export const LISTED_HASH_MAX_BYTES = 1 << 20;

/** One entry of `GET /files/list`; a symlink is `other` (never followed). */
export interface ListedEntry {
  name: string;
  type: "file" | "dir" | "other";
  bytes: number;
  /** Hex SHA-256 of a regular file's bytes, for files up to LISTED_HASH_MAX_BYTES. */
  sha256?: string;
}

/**
 * `GET /files/list?path=<dir>`: the directory's entries, sorted by name, so a caller can tell
 * which files are there and whether their content is what it wrote without reading them back.
 *
 * @example GET /files/list?path=/home/agent/scripts
 *   → {"path":"/home/agent/scripts","entries":[{"name":"a.py","type":"file","bytes":12,"sha256":"…"}]}
 */
export async function listFiles(res: ServerResponse, url: URL): Promise<void> {
  const path = pathParam(url, res);
  if (!path) return;
  try {
    if (!(await stat(path)).isDirectory()) return sendError(res, 409, "path.not_directory", `${path} is not a directory`);
  } catch {
    return sendError(res, 404, "path.not_found", `${path} does not exist`);
  }
  let names: string[];
  try {
    names = (await readdir(path)).sort();
  } catch (err) {
    return sendError(res, 500, "file.list_failed", `could not list ${path}: ${errno(err) ?? "error"}`);
  }
  const entries: ListedEntry[] = [];
  // One entry at a time: a large directory must not open thousands of files at once.
  for (const name of names) {
    const entry = await describeEntry(join(path, name), name);
    if (entry) entries.push(entry);
  }
  sendJson(res, 200, { path, entries });
}

/** An entry as listed, or undefined when it disappeared while the directory was read. */
async function describeEntry(path: string, name: string): Promise<ListedEntry | undefined> {
  try {
    const st = await lstat(path);
    if (st.isDirectory()) return { name, type: "dir", bytes: st.size };
    if (!st.isFile()) return { name, type: "other", bytes: st.size };
    if (st.size > LISTED_HASH_MAX_BYTES) return { name, type: "file", bytes: st.size };
    // Size and hash from the same read, so they agree even if the file changed since lstat.
    const bytes = await readFile(path);
    return { name, type: "file", bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
  } catch (err) {
    if (errno(err) === "ENOENT") return undefined;
    throw err;
  }
}
