import { useEffect, useState } from "preact/hooks";
import { api, describe, type SandboxState, unwrap } from "./api";
import { renewalDelay } from "./sandbox-view";

/** A view's path under one ticket, and when that ticket stops opening it. */
interface Ticketed {
  path: string;
  expiresAt: string;
}

/**
 * Opens a view of the agent's box (UI-011, UI-014): starts it through the API, polling the
 * box's state meanwhile for the progress line; `url` is the view to embed once it is up,
 * `failure` the API's reason when it is not (e.g. sandbox.unavailable's message).
 *
 * While the tab is open its ticket is renewed before it expires (the ticket routes, which
 * leave the box and its idle timer alone), so the frame can load its page again: `reconnect`
 * reloads it under the newest ticket. The frame is not reloaded by a renewal itself, which
 * would end the terminal's shell or the desktop's connection.
 */
export function useSandboxView(agentId: string, view: "browser" | "cli") {
  const [url, setUrl] = useState<string | null>(null);
  const [latest, setLatest] = useState<Ticketed | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [state, setState] = useState<SandboxState | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [loads, setLoads] = useState(0);

  useEffect(() => {
    let live = true;
    setUrl(null);
    setLatest(null);
    setFailure(null);
    const poll = setInterval(() => {
      api.GET("/api/agents/{id}/sandbox", { params: { path: { id: agentId } } }).then(
        ({ data }) => live && data && setState(data),
        () => {},
      );
    }, 1000);
    const params = { params: { path: { id: agentId } } };
    const start: Promise<Ticketed> =
      view === "browser"
        ? unwrap(api.POST("/api/agents/{id}/browser/start", params)).then((v) => ({ path: v.vnc_url, expiresAt: v.expires_at }))
        : unwrap(api.POST("/api/agents/{id}/cli/start", params)).then((v) => ({ path: v.tty_url, expiresAt: v.expires_at }));
    start
      .then(
        (ticketed) => {
          if (!live) return;
          setUrl(ticketed.path);
          setLatest(ticketed);
        },
        (error: unknown) => live && setFailure(describe(error)),
      )
      .finally(() => clearInterval(poll));
    return () => {
      live = false;
      clearInterval(poll);
    };
  }, [agentId, view, attempt]);

  // One renewal pending at a time, scheduled from the newest ticket's expiry.
  useEffect(() => {
    if (!latest) return;
    let live = true;
    const params = { params: { path: { id: agentId } } };
    const renew = () => {
      const next: Promise<Ticketed> =
        view === "browser"
          ? unwrap(api.POST("/api/agents/{id}/browser/ticket", params)).then((v) => ({ path: v.vnc_url, expiresAt: v.expires_at }))
          : unwrap(api.POST("/api/agents/{id}/cli/ticket", params)).then((v) => ({ path: v.tty_url, expiresAt: v.expires_at }));
      next.then(
        (ticketed) => live && setLatest(ticketed),
        // Refused (the view turned off, the agent gone) or unreachable: the open frame says so
        // itself when its connection ends; try again while the ticket lasts.
        () => {
          if (live && Date.parse(latest.expiresAt) > Date.now() + 2000) timer = setTimeout(renew, 5000);
        },
      );
    };
    let timer = setTimeout(renew, renewalDelay(latest.expiresAt, Date.now()));
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [agentId, view, latest]);

  return {
    url,
    /** Bumped by `reconnect`: the frame's key, so it loads again. */
    loads,
    failure,
    state,
    retry: () => setAttempt((n) => n + 1),
    /** Loads the frame again under the newest ticket, without starting the box anew. */
    reconnect: () => {
      if (latest) setUrl(latest.path);
      setLoads((n) => n + 1);
    },
  };
}
