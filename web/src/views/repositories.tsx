import { useState } from "preact/hooks";
import { ConfirmDelete } from "../components/confirm";
import { Field } from "../components/field";
import { GitHubConnections } from "../components/github-connections";
import { GuildHeader } from "../components/guild-tabs";
import { Notice } from "../components/notice";
import { RepositoryIssues } from "../components/repository-issues";
import { WebhookDeliveries } from "../components/webhook-deliveries";
import { api, type GitHubConnection, type Repository, unwrap } from "../lib/api";
import { useFailure } from "../lib/use-failure";
import { useLoad } from "../lib/use-load";
import { useSubmit } from "../lib/use-submit";

/**
 * A guild's repositories: what its coding agents clone into /home/agent/repos at each
 * generation, each public (cloned anonymously) or reached through a GitHub connection of
 * the organisation, listed below it. Per repository, what its issues do: the task agent an
 * issue labelled with the trigger label (or a comment mentioning the agent) files a task for.
 */
export function RepositoriesView(props: { id: string }) {
  const path = { params: { path: { id: props.id } } };
  const guild = useLoad(() => unwrap(api.GET("/api/guilds/{id}", path)), [props.id]);
  const repositories = useLoad(async () => (await unwrap(api.GET("/api/guilds/{id}/repositories", path))).data, [props.id]);
  const connections = useLoad(() => unwrap(api.GET("/api/github/connections")), []);
  const agents = useLoad(async () => (await unwrap(api.GET("/api/agents", { params: { query: { guild_id: props.id, limit: 200 } } }))).data, [props.id]);
  const { failure, attempt } = useFailure();

  if (guild.error) return <Notice kind="error">Could not load the guild: {guild.error}</Notice>;
  if (!guild.data) return <p aria-busy="true">Loading…</p>;
  const all = connections.data?.data ?? [];

  const remove = (r: Repository) =>
    attempt(`remove ${r.full_name}`, async () => {
      await unwrap(api.DELETE("/api/repositories/{id}", { params: { path: { id: r.id } } }));
      await repositories.reload();
    });

  return (
    <section>
      <GuildHeader guild={guild.data} title="Repositories" current="repositories" />
      <p class="lead">
        Every coding agent of this guild clones these into /home/agent/repos at the start of its generations, then works in them with git itself.
      </p>
      {repositories.error && <Notice kind="error">Could not load the repositories: {repositories.error}</Notice>}
      {connections.error && <Notice kind="error">Could not load the GitHub connections: {connections.error}</Notice>}
      {agents.error && <Notice kind="error">Could not load the agents: {agents.error}</Notice>}
      {failure && <Notice kind="error">{failure}</Notice>}
      {repositories.data && repositories.data.length === 0 && <p class="muted">No repository in this guild yet.</p>}
      {repositories.data && repositories.data.length > 0 && (
        <table class="list">
          <caption class="sr-only">Repositories of {guild.data.name}</caption>
          <thead>
            <tr>
              <th scope="col">Repository</th>
              <th scope="col">Folder</th>
              <th scope="col">Default branch</th>
              <th scope="col">Access</th>
              <th scope="col">Issues</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {repositories.data.map((r) => (
              <tr key={r.id} data-repository={r.full_name}>
                <td>
                  <code>{r.full_name}</code>
                </td>
                <td>
                  <code>{r.name}</code>
                </td>
                <td>
                  <code>{r.default_branch}</code>
                </td>
                <td>
                  <Access repository={r} connections={all} />
                </td>
                <td>
                  {/* Shown once the agents are in: a form without them would offer no task agent to pick. */}
                  {agents.data ? (
                    <RepositoryIssues
                      key={`${r.id}-${r.task_agent_id}-${r.trigger_label}`}
                      repository={r}
                      agents={agents.data}
                      onSaved={() => void repositories.reload()}
                    />
                  ) : (
                    !agents.error && (
                      <span class="muted" aria-busy="true">
                        Loading…
                      </span>
                    )
                  )}
                </td>
                <td class="actions">
                  <ConfirmDelete what={`${r.full_name} from this guild`} verb="Remove" label="Remove…" onConfirm={() => remove(r)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <AddRepository guildId={props.id} connections={all.filter((c) => !c.disconnected_at)} onAdded={() => void repositories.reload()} />
      {connections.data && (
        <GitHubConnections
          connections={connections.data.data}
          configured={connections.data.configured}
          onChanged={() => {
            void connections.reload();
            void repositories.reload();
          }}
        />
      )}
      <WebhookDeliveries />
    </section>
  );
}

function Access(props: { repository: Repository; connections: GitHubConnection[] }) {
  if (!props.repository.connection_id) return <span>Public, cloned anonymously</span>;
  const connection = props.connections.find((c) => c.id === props.repository.connection_id);
  if (!connection) return <span class="muted">A GitHub connection</span>;
  return (
    <span>
      Through {connection.account_login}
      {connection.disconnected_at && <span class="badge">disconnected: generations fail until it is connected again</span>}
    </span>
  );
}

const textOf = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;

function AddRepository(props: { guildId: string; connections: GitHubConnection[]; onAdded: () => void }) {
  const [fullName, setFullName] = useState("");
  const [connectionId, setConnectionId] = useState("");
  const [branch, setBranch] = useState("main");
  const { errors, failure, busy, run } = useSubmit();
  const submit = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      const body = { full_name: fullName.trim(), connection_id: connectionId || null, default_branch: branch.trim() };
      await unwrap(api.POST("/api/guilds/{id}/repositories", { params: { path: { id: props.guildId } }, body }));
      setFullName("");
      props.onAdded();
    });
  };
  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="add-repository">
      <h2 id="add-repository">Add a repository</h2>
      {failure && <Notice kind="error">{failure}</Notice>}
      <Field name="full_name" label="Repository" error={errors.full_name} hint="owner/repo as on GitHub, e.g. acme/widgets." prefix="repository-new">
        {(a) => <input {...a} type="text" autocomplete="off" value={fullName} onInput={(e) => setFullName(textOf(e))} />}
      </Field>
      <Field name="connection_id" label="Access" error={errors.connection_id} prefix="repository-new">
        {(a) => (
          <select {...a} value={connectionId} onChange={(e) => setConnectionId(textOf(e))}>
            <option value="">Public: cloned anonymously</option>
            {props.connections.map((c) => (
              <option key={c.id} value={c.id}>
                Through the GitHub connection of {c.account_login}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field name="default_branch" label="Default branch" error={errors.default_branch} prefix="repository-new">
        {(a) => <input {...a} type="text" autocomplete="off" value={branch} onInput={(e) => setBranch(textOf(e))} />}
      </Field>
      <button type="submit" class="primary" disabled={busy}>
        Add repository
      </button>
    </form>
  );
}
