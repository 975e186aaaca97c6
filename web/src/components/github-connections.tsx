import { useState } from "preact/hooks";
import { api, describe, type GitHubConnection, unwrap } from "../lib/api";
import { when } from "../lib/format";
import { rememberReturn } from "../lib/github-setup";
import { useFailure } from "../lib/use-failure";
import { Notice } from "./notice";

/**
 * The organisation's GitHub connections: installations of the platform's GitHub App. Connecting
 * sends the user to the App's install page on GitHub, which brings them back to the setup page
 * (views/github-setup.tsx) to claim the installation; disconnecting keeps the guilds'
 * repositories, whose agents then fail to start a generation until it is connected again.
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
          This platform has no GitHub App, so installations cannot be connected: its operator sets GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY, GITHUB_APP_SLUG,
          GITHUB_APP_CLIENT_ID and GITHUB_APP_CLIENT_SECRET. Public repositories still work.
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
      {props.configured && <ConnectButton />}
    </section>
  );
}

/** Leaves for the App's install page with a claim state of this organisation; GitHub brings the user back. */
function ConnectButton() {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const connect = async () => {
    setBusy(true);
    setFailure(null);
    try {
      const claim = await unwrap(api.POST("/api/github/claims"));
      rememberReturn(location.pathname);
      location.assign(claim.install_url);
    } catch (error) {
      setFailure(describe(error));
      setBusy(false);
    }
  };
  return (
    <div class="inline-form">
      <button type="button" class="primary" disabled={busy} onClick={() => void connect()}>
        Connect GitHub
      </button>
      <p class="muted">Install the platform's GitHub App on an account and choose its repositories; GitHub brings you back here.</p>
      {failure && <Notice kind="error">{failure}</Notice>}
    </div>
  );
}
