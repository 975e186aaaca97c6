/**
 * The file routes: write (atomically, through a sibling temp file, so a failed upload leaves
 * nothing half-written), read, delete, and move that refuses to overwrite.
 */
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { link, lstat, mkdir, rename, rm, stat, unlink } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname } from "node:path";
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
