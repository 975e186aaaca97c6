/**
 * Path rules for the file and workspace routes: the caller names absolute paths only, so a
 * relative path can never resolve against whatever directory the guest happens to run in.
 */
import { posix } from "node:path";

export type PathCheck = { ok: true; path: string } | { ok: false; code: "path.missing" | "path.relative" | "path.invalid"; message: string };

/**
 * Validates and normalises an absolute POSIX path (`..` and `.` segments resolved, repeated
 * and trailing slashes dropped).
 *
 * @example checkAbsolutePath("/home/agent/../agent/a//b/") // { ok: true, path: "/home/agent/a/b" }
 */
export function checkAbsolutePath(raw: string | null | undefined, name = "path"): PathCheck {
  if (raw === null || raw === undefined || raw === "") return { ok: false, code: "path.missing", message: `${name} is required` };
  if (raw.includes("\0")) return { ok: false, code: "path.invalid", message: `${name} contains a NUL byte` };
  if (!raw.startsWith("/")) return { ok: false, code: "path.relative", message: `${name} must be absolute, got ${JSON.stringify(raw)}` };
  const path = posix.normalize(raw);
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return { ok: true, path: trimmed };
}
