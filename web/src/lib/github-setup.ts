/**
 * The console's side of claiming a GitHub installation (OP-REPO-6). "Connect GitHub" keeps the
 * page to come back to and leaves for the App's install page; GitHub then opens the setup
 * page (`/github/setup`) with what its redirect carries, which `readSetup` turns into the
 * body of `POST /api/github/connections`.
 *
 * @example
 *   readSetup("?installation_id=42&setup_action=install&code=abc&state=n.x.s")
 *   // { kind: "claim", body: { installation_id: 42, code: "abc", state: "n.x.s" } }
 */

export type Setup =
  | { kind: "claim"; body: { installation_id: number; code: string; state: string } }
  /** An organisation member asked its owners to install the App: nothing to claim yet. */
  | { kind: "requested" }
  | { kind: "incomplete"; missing: string[] };

export function readSetup(search: string): Setup {
  const query = new URLSearchParams(search);
  if (query.get("setup_action") === "request") return { kind: "requested" };
  const id = Number(query.get("installation_id"));
  const code = query.get("code") ?? "";
  const state = query.get("state") ?? "";
  const missing = [...(Number.isSafeInteger(id) && id > 0 ? [] : ["installation_id"]), ...(code ? [] : ["code"]), ...(state ? [] : ["state"])];
  if (missing.length) return { kind: "incomplete", missing };
  return { kind: "claim", body: { installation_id: id, code, state } };
}

const RETURN_KEY = "guilds.github-setup.return";

/** Where the setup page goes back to: the page that started the claim, in this tab. */
export function rememberReturn(path: string, storage: Pick<Storage, "setItem"> = sessionStorage): void {
  storage.setItem(RETURN_KEY, path);
}

/** The remembered page (once), or the guilds; only a path of this console is followed. */
export function takeReturn(storage: Pick<Storage, "getItem" | "removeItem"> = sessionStorage): string {
  const path = storage.getItem(RETURN_KEY);
  storage.removeItem(RETURN_KEY);
  return path && /^\/(?!\/)/.test(path) ? path : "/guilds";
}
