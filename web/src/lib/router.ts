import { useEffect, useState } from "preact/hooks";

/** Client-side routing over the History API; the Worker answers any path with index.html. */
const listeners = new Set<() => void>();

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  for (const fn of listeners) fn();
}

/** The current path; re-renders on navigation and on Back/Forward. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      removeEventListener("popstate", update);
    };
  }, []);
  return path;
}

export interface Match {
  view:
    | "sign-in"
    | "guilds"
    | "guild"
    | "guild-chat"
    | "guild-repositories"
    | "guild-tasks"
    | "task"
    | "agent"
    | "agent-settings"
    | "agent-routines"
    | "agent-scripts"
    | "agent-browser"
    | "agent-cli"
    | "run"
    | "usage"
    | "tokens"
    | "secrets"
    | "github-setup"
    | "connections"
    | "mcp-callback"
    | "not-found";
  id?: string;
}

const ROUTES: Array<[RegExp, Match["view"]]> = [
  [/^\/sign-in\/?$/, "sign-in"],
  [/^\/(guilds\/?)?$/, "guilds"],
  [/^\/guilds\/([^/]+)\/?$/, "guild"],
  [/^\/guilds\/([^/]+)\/chat\/?$/, "guild-chat"],
  [/^\/guilds\/([^/]+)\/repositories\/?$/, "guild-repositories"],
  [/^\/guilds\/([^/]+)\/tasks\/?$/, "guild-tasks"],
  [/^\/tasks\/([^/]+)\/?$/, "task"],
  [/^\/agents\/([^/]+)\/?$/, "agent"],
  [/^\/agents\/([^/]+)\/settings\/?$/, "agent-settings"],
  [/^\/agents\/([^/]+)\/routines\/?$/, "agent-routines"],
  [/^\/agents\/([^/]+)\/scripts\/?$/, "agent-scripts"],
  [/^\/agents\/([^/]+)\/browser\/?$/, "agent-browser"],
  [/^\/agents\/([^/]+)\/cli\/?$/, "agent-cli"],
  [/^\/runs\/([^/]+)\/?$/, "run"],
  [/^\/usage\/?$/, "usage"],
  [/^\/tokens\/?$/, "tokens"],
  [/^\/secrets\/?$/, "secrets"],
  [/^\/github\/setup\/?$/, "github-setup"],
  [/^\/connections\/?$/, "connections"],
  [/^\/mcp\/callback\/?$/, "mcp-callback"],
];

/**
 * The view for a path.
 *
 * @example match("/runs/4f…") // { view: "run", id: "4f…" }
 */
export function match(path: string): Match {
  for (const [pattern, view] of ROUTES) {
    const m = pattern.exec(path);
    if (m) return m[1] ? { view, id: decodeURIComponent(m[1]) } : { view };
  }
  return { view: "not-found" };
}
