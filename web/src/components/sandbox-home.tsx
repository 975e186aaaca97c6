import { useEffect, useState } from "preact/hooks";
import { STATUS_POLL_MS } from "../lib/agent-status";
import { api, type SandboxState, unwrap } from "../lib/api";
import { when } from "../lib/format";
import { ConfirmDelete } from "./confirm";
import { Link } from "./link";
import { Notice } from "./notice";

/** The agent's sandbox state, asked again every few seconds while the page is visible. */
function useSandboxState(agentId: string) {
  const [state, setState] = useState<SandboxState | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    const ask = () =>
      api.GET("/api/agents/{id}/sandbox", { params: { path: { id: agentId } } }).then(
        ({ data }) => live && data && setState(data),
        () => {},
      );
    void ask();
    const timer = setInterval(() => document.visibilityState === "visible" && void ask(), STATUS_POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [agentId, tick]);
  return { state, refresh: () => setTick((n) => n + 1) };
}

/** @example mebibytes(3_145_728) // "3.0 MiB" */
const mebibytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MiB`;

/** Why the home is not saved, and what happens next; the same words on the agent's page and its settings. */
function SaveFailure(props: { error: NonNullable<SandboxState["home_save_error"]>; settingsHref?: string }) {
  const { error } = props;
  return (
    <Notice kind="error" testId="home-save-failed">
      <strong>The agent's home could not be saved</strong> (<code>{error.code}</code>, <code>{error.cause}</code>): {error.message}. Its box is kept so no file
      is lost, and the save is tried again
      {error.next_attempt_at ? (
        <>
          {" "}
          <time dateTime={error.next_attempt_at}>{when(error.next_attempt_at)}</time>
        </>
      ) : null}{" "}
      ({error.attempts} failed so far).
      {props.settingsHref && (
        <>
          {" "}
          If it cannot succeed, <Link href={props.settingsHref}>Reset home</Link> in the agent's settings.
        </>
      )}
    </Notice>
  );
}

/** On the agent's page: the failed save of its home (sandbox.home_save_failed), while there is one. */
export function HomeSaveAlert(props: { agentId: string }) {
  const { state } = useSandboxState(props.agentId);
  return state?.home_save_error ? <SaveFailure error={state.home_save_error} settingsHref={`/agents/${props.agentId}/settings`} /> : null;
}

/** In the agent's settings: the saved home, a failed save, and Reset home, which asks first. */
export function HomeSettings(props: { agentId: string; name: string }) {
  const { state, refresh } = useSandboxState(props.agentId);
  const [done, setDone] = useState<string | null>(null);
  const saved = state?.saved_home;
  return (
    <section class="card danger-zone" aria-labelledby="settings-home">
      <h2 id="settings-home">Home</h2>
      <p data-testid="saved-home">
        {!state
          ? "…"
          : saved
            ? `The saved home (/home/agent) holds ${mebibytes(saved.bytes)}, saved ${when(saved.saved_at)}; the next box restores it.`
            : "No saved home: the next box starts with an empty /home/agent."}
      </p>
      {state?.home_save_error && <SaveFailure error={state.home_save_error} />}
      <p>
        Reset home destroys the agent's box without saving and deletes the saved home: every file under /home/agent is lost. It is the way out of a home that
        can no longer be saved or restored.
      </p>
      <ConfirmDelete
        what={`the home of ${props.name}`}
        verb="Reset"
        label="Reset home…"
        onConfirm={async () => {
          const reset = await unwrap(api.POST("/api/agents/{id}/sandbox/reset", { params: { path: { id: props.agentId } } }));
          setDone(reset.destroyed ? "Home reset: the box was destroyed and the saved home deleted." : "Home reset: the saved home was deleted.");
          refresh();
        }}
      />
      {done && <Notice kind="success">{done}</Notice>}
    </section>
  );
}
