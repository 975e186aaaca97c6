import { useState } from "preact/hooks";
import { AgentForm } from "../components/agent-form";
import { ConfirmDelete } from "../components/confirm";
import { Field } from "../components/field";
import { GuildHeader } from "../components/guild-tabs";
import { Link } from "../components/link";
import { Notice } from "../components/notice";
import { RoutinesSwitch } from "../components/routines-switch";
import { type Agent, ApiError, api, describe, type Guild, unwrap } from "../lib/api";
import { when } from "../lib/format";
import { navigate } from "../lib/router";
import { useFailure } from "../lib/use-failure";
import { useLoad } from "../lib/use-load";

/** One guild: its agents (list, create, delete) and its own settings; its group chat is the next tab. */
export function GuildView(props: { id: string }) {
  const guild = useLoad(() => unwrap(api.GET("/api/guilds/{id}", { params: { path: { id: props.id } } })), [props.id]);
  const agents = useLoad(() => unwrap(api.GET("/api/agents", { params: { query: { guild_id: props.id, limit: 200 } } })), [props.id]);
  const [creating, setCreating] = useState(false);
  const { failure, attempt } = useFailure();

  if (guild.error) return <Notice kind="error">Could not load the guild: {guild.error}</Notice>;
  if (!guild.data) return <p aria-busy="true">Loading…</p>;
  const g = guild.data;

  const removeAgent = (agent: Agent) =>
    attempt(`delete ${agent.name}`, async () => {
      await unwrap(api.DELETE("/api/agents/{id}", { params: { path: { id: agent.id } } }));
      await agents.reload();
    });

  return (
    <section>
      <GuildHeader guild={g} title={g.name} current="agents" />
      {g.description && <p class="lead">{g.description}</p>}
      {failure && <Notice kind="error">{failure}</Notice>}
      <h2>Agents</h2>
      {agents.error && <Notice kind="error">Could not load the agents: {agents.error}</Notice>}
      {agents.data && agents.data.data.length === 0 && <p>No agent in this guild yet.</p>}
      {agents.data && agents.data.data.length > 0 && (
        <table class="list">
          <caption class="sr-only">Agents of {g.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Model</th>
              <th scope="col">Capabilities</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {agents.data.data.map((a) => (
              <tr key={a.id} data-agent={a.name}>
                <td>
                  <Link href={`/agents/${a.id}`}>{a.name}</Link>
                </td>
                <td>
                  <code>{a.model}</code>
                </td>
                <td>{(["browser", "coding", "cli", "scripting", "memory"] as const).filter((f) => a[f]).join(", ") || "–"}</td>
                <td>{when(a.created_at)}</td>
                <td class="actions">
                  <Link href={`/agents/${a.id}/settings`} class="button">
                    Settings
                  </Link>{" "}
                  <ConfirmDelete what={`agent ${a.name} with its runs`} onConfirm={() => removeAgent(a)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {!creating && (
        <button type="button" class="primary" onClick={() => setCreating(true)}>
          New agent
        </button>
      )}
      {creating && (
        <section class="card" aria-labelledby="new-agent">
          <h2 id="new-agent">New agent</h2>
          <AgentForm
            agent={null}
            submitLabel="Create agent"
            onSubmit={async (body) => {
              const agent = await unwrap(api.POST("/api/guilds/{id}/agents", { params: { path: { id: g.id } }, body }));
              navigate(`/agents/${agent.id}`);
            }}
          />
          <button type="button" class="link" onClick={() => setCreating(false)}>
            Close
          </button>
        </section>
      )}
      <RoutinesSwitch guild={g} onSaved={(next) => guild.setData(next)} />
      <GuildSettings guild={g} onSaved={(next) => guild.setData(next)} />
    </section>
  );
}

function GuildSettings(props: { guild: Guild; onSaved: (guild: Guild) => void }) {
  const [name, setName] = useState(props.guild.name);
  const [description, setDescription] = useState(props.guild.description);
  const [email, setEmail] = useState(props.guild.git_author_email ?? "");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<{ kind: "error" | "success"; text: string } | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setErrors({});
    setMessage(null);
    try {
      const body = { name, description, git_author_email: email.trim() === "" ? null : email };
      props.onSaved(await unwrap(api.PATCH("/api/guilds/{id}", { params: { path: { id: props.guild.id } }, body })));
      setMessage({ kind: "success", text: "Saved." });
    } catch (e) {
      if (e instanceof ApiError && e.code === "validation.failed") setErrors(e.fieldErrors());
      else setMessage({ kind: "error", text: describe(e) });
    }
  };

  return (
    <details class="card">
      <summary>
        <h2 class="inline">Guild settings</h2>
      </summary>
      <form onSubmit={submit} noValidate>
        {message && <Notice kind={message.kind}>{message.text}</Notice>}
        <Field name="name" label="Name" error={errors.name} prefix="guild">
          {(a) => <input {...a} type="text" value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />}
        </Field>
        <Field name="description" label="Description" error={errors.description} prefix="guild">
          {(a) => <textarea {...a} rows={2} value={description} onInput={(e) => setDescription((e.currentTarget as HTMLTextAreaElement).value)} />}
        </Field>
        <Field name="git_author_email" label="Git author email" error={errors.git_author_email} prefix="guild">
          {(a) => <input {...a} type="email" value={email} onInput={(e) => setEmail((e.currentTarget as HTMLInputElement).value)} />}
        </Field>
        <button type="submit" class="primary">
          Save guild
        </button>
      </form>
    </details>
  );
}
