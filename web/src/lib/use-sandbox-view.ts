import { useEffect, useState } from "preact/hooks";
import { api, describe, type SandboxState, unwrap } from "./api";

/**
 * Opens a view of the agent's box (UI-011, UI-014): starts it through the API, polling the
 * box's state meanwhile for the progress line; `url` is the view to embed once it is up,
 * `failure` the API's reason when it is not (e.g. sandbox.unavailable's message).
 */
export function useSandboxView(agentId: string, view: "browser" | "cli") {
  const [url, setUrl] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [state, setState] = useState<SandboxState | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    setUrl(null);
    setFailure(null);
    const poll = setInterval(() => {
      api.GET("/api/agents/{id}/sandbox", { params: { path: { id: agentId } } }).then(
        ({ data }) => live && data && setState(data),
        () => {},
      );
    }, 1000);
    const params = { params: { path: { id: agentId } } };
    const start =
      view === "browser"
        ? unwrap(api.POST("/api/agents/{id}/browser/start", params)).then((v) => v.vnc_url)
        : unwrap(api.POST("/api/agents/{id}/cli/start", params)).then((v) => v.tty_url);
    start
      .then(
        (path) => live && setUrl(path),
        (error: unknown) => live && setFailure(describe(error)),
      )
      .finally(() => clearInterval(poll));
    return () => {
      live = false;
      clearInterval(poll);
    };
  }, [agentId, view, attempt]);

  return { url, failure, state, retry: () => setAttempt((n) => n + 1) };
}
