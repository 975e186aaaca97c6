import { useState } from "preact/hooks";
import { api, type GitHubConnection, unwrap } from "../lib/api";
import { when } from "../lib/format";
import { useFailure } from "../lib/use-failure";
import { useSubmit } from "../lib/use-submit";
import { Field } from "./field";
import { Notice } from "./notice";

/**
 * The organisation's GitHub connections: installations of the platform's GitHub App. Connecting
 * asks GitHub for the installation; disconnecting keeps the guilds' repositories, whose agents then
 * fail to start a generation until it is connected again.
 */
export function GitHubConnections(props: { connections: GitHubConnection[]; configured: boolean; onChanged: () => void }) {
  const { failure, attempt } = useFailure();
  const disconnect = (c: GitHubConnection) =>
    attempt(`disconnect ${c.account_login}`, async () => {
      await unwrap(api.DELETE("/api/github/connections/{id}", { params: { path: { id: c.id } } }));
      props.onChanged();
    });
  return (
    <section aria-labelledby="github-connections">
      <h2 id="github-connections">GitHub connections</h2>
      <p class="muted">Shared by every guild of the organisation. A private repository is reached through the connection of its account.</p>
      {!props.configured && (
        <Notice kind="info">
          This platform has no GitHub App, so installations cannot be connected: its operator sets GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY. Public repositories
          still work.
        </Notice>
      )}
      {failure && <Notice kind="error">{failure}</Notice>}
      {props.connections.length === 0 && <p class="muted">No GitHub connection yet.</p>}
      {props.connections.length > 0 && (
        <ul class="grants" aria-label="GitHub connections">
          {props.connections.map((c) => (
            <li key={c.id} data-connection={c.account_login}>
              <strong>{c.account_login}</strong> <span class="muted">installation {c.installation_id}</span>{" "}
              {c.disconnected_at ? (
                <span class="badge">disconnected {when(c.disconnected_at)}</span>
              ) : (
                <button type="button" class="danger-outline" onClick={() => void disconnect(c)}>
                  Disconnect
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {props.configured && <ConnectForm onConnected={props.onChanged} />}
    </section>
  );
}

function ConnectForm(props: { onConnected: () => void }) {
  const [installation, setInstallation] = useState("");
  const { errors, failure, busy, run } = useSubmit();
  const submit = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      await unwrap(api.POST("/api/github/connections", { body: { installation_id: Number(installation) } }));
      setInstallation("");
      props.onConnected();
    });
  };
  return (
    <form class="inline-form" onSubmit={submit} noValidate aria-label="Connect a GitHub installation">
      <Field
        name="installation_id"
        label="Installation id"
        error={errors.installation_id}
        hint="The number at the end of the installation's settings address on GitHub."
        prefix="connect"
      >
        {(a) => (
          <input {...a} type="text" inputMode="numeric" value={installation} onInput={(e) => setInstallation((e.currentTarget as HTMLInputElement).value)} />
        )}
      </Field>
      <button type="submit" class="primary" disabled={busy || !installation.trim()}>
        Connect
      </button>
      {failure && <Notice kind="error">{failure}</Notice>}
    </form>
  );
}
