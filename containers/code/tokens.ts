/** The generation's installation tokens, as the platform writes them (OP-REPO-1). */
import { readFileSync } from "node:fs";
import { GIT_TOKENS_PATH, type GitTokenEntry } from "../../core/repos/types";

/** The token entry for a key, or undefined when the file is missing, unreadable or has none. */
export function tokenFor(key: string, path = GIT_TOKENS_PATH): GitTokenEntry | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object") return undefined;
  const entry = (parsed as Record<string, unknown>)[key];
  if (!entry || typeof entry !== "object") return undefined;
  const { token, expires_at } = entry as Record<string, unknown>;
  return typeof token === "string" && token && !/[\r\n\0]/.test(token) ? { token, expires_at: typeof expires_at === "string" ? expires_at : "" } : undefined;
}
