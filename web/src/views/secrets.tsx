import { useState } from "preact/hooks";
import { ConfirmDelete } from "../components/confirm";
import { Field } from "../components/field";
import { GrantForm, type GrantTargets } from "../components/grant-form";
import { Notice } from "../components/notice";
import { api, describe, everyPage, type Secret, unwrap } from "../lib/api";
import { when } from "../lib/format";
import { useLoad } from "../lib/use-load";
import { useSubmit } from "../lib/use-submit";

type Targets = GrantTargets;

/**
 * The organisation's secrets and who gets them. A value is typed once and never shown
 * again: the API has no way to read it back, and the fields are write-only.
 */
export function SecretsView() {
  // Every page (an organisation holds at most a few hundred), shown by name as before.
  const list = useLoad(
    async () =>
      (await everyPage((cursor) => unwrap(api.GET("/api/secrets", { params: { query: { limit: 200, cursor } } })))).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      ),
    [],
  );
  const targets = useLoad<Targets>(
    async () => ({
      guilds: await everyPage((cursor) => unwrap(api.GET("/api/guilds", { params: { query: { limit: 200, cursor } } }))),
      agents: await everyPage((cursor) => unwrap(api.GET("/api/agents", { params: { query: { limit: 200, cursor } } }))),
    }),
    [],
  );
  return (
    <section>
      <h1>Secrets</h1>
      <p class="lead">
        Values an agent needs, such as a provider key or a token. Each reaches the whole organisation or only the guilds and agents it is granted to. A value is
        stored encrypted and is never shown after it is saved.
      </p>
      {list.error && <Notice kind="error">Could not load the secrets: {list.error}</Notice>}
      {targets.error && <Notice kind="error">Could not load the guilds and agents: {targets.error}</Notice>}
      {list.data && list.data.length === 0 && <p class="muted">No secrets yet.</p>}
      {list.data?.map((s) => (
        <SecretCard key={s.id} secret={s} targets={targets.data ?? { guilds: [], agents: [] }} onChanged={() => void list.reload()} />
      ))}
      <CreateSecret onCreated={() => void list.reload()} />
    </section>
  );
}

const textOf = (e: Event) => (e.currentTarget as HTMLInputElement).value;

function SecretCard(props: { secret: Secret; targets: Targets; onChanged: () => void }) {
  const { secret, targets } = props;
  const [editing, setEditing] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const path = { params: { path: { id: secret.id } } };
  const nameOf = (g: Secret["grants"][number]) =>
    g.guild_id
      ? `Guild ${targets.guilds.find((x) => x.id === g.guild_id)?.name ?? g.guild_id}`
      : `Agent ${targets.agents.find((x) => x.id === g.agent_id)?.name ?? g.agent_id}`;
  const act = async (what: string, action: () => Promise<unknown>) => {
    setFailure(null);
    try {
      await action();
      props.onChanged();
    } catch (e) {
      setFailure(`Could not ${what}: ${describe(e)}`);
    }
  };
  return (
    <article class="card" data-secret={secret.name} aria-labelledby={`secret-${secret.id}`}>
      <h2 id={`secret-${secret.id}`}>
        <code>{secret.name}</code> {secret.org_wide && <span class="badge">organisation-wide</span>}
      </h2>
      {secret.description && <p>{secret.description}</p>}
      <p class="muted">Value hidden · updated {when(secret.updated_at)}</p>
      {failure && <Notice kind="error">{failure}</Notice>}
      <ul class="grants" aria-label={`Grants of ${secret.name}`}>
        {secret.grants.map((g) => (
          <li key={g.id}>
            {nameOf(g)}{" "}
            <button
              type="button"
              class="danger-outline"
              onClick={() =>
                void act("revoke the grant", () =>
                  unwrap(api.DELETE("/api/secrets/{id}/grants/{grant_id}", { params: { path: { id: secret.id, grant_id: g.id } } })),
                )
              }
            >
              Revoke
            </button>
          </li>
        ))}
      </ul>
      <GrantForm
        formId={`grant-${secret.id}`}
        grants={secret.grants}
        targets={targets}
        onGrant={(body) => act("grant it", () => unwrap(api.POST("/api/secrets/{id}/grants", { ...path, body })))}
      />
      <p class="inline-form">
        <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          {editing ? "Close" : "Edit…"}
        </button>
        <ConfirmDelete what={`secret ${secret.name}`} onConfirm={() => act("delete it", () => unwrap(api.DELETE("/api/secrets/{id}", path)))} />
      </p>
      {editing && (
        <EditSecret
          secret={secret}
          onSaved={() => {
            setEditing(false);
            props.onChanged();
          }}
        />
      )}
    </article>
  );
}

function EditSecret(props: { secret: Secret; onSaved: () => void }) {
  const [description, setDescription] = useState(props.secret.description);
  const [value, setValue] = useState("");
  const [orgWide, setOrgWide] = useState(props.secret.org_wide);
  const { errors, failure, busy, run } = useSubmit();
  const prefix = `edit-${props.secret.id}`;
  const submit = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      // An empty value field keeps the stored value.
      const body = { description, org_wide: orgWide, ...(value ? { value } : {}) };
      await unwrap(api.PATCH("/api/secrets/{id}", { params: { path: { id: props.secret.id } }, body }));
      setValue("");
      props.onSaved();
    });
  };
  return (
    <form onSubmit={submit} noValidate aria-label={`Edit ${props.secret.name}`}>
      {failure && <Notice kind="error">{failure}</Notice>}
      <Field name="description" label="Description" error={errors.description} prefix={prefix}>
        {(a) => <input {...a} type="text" value={description} onInput={(e) => setDescription(textOf(e))} />}
      </Field>
      <Field name="value" label="New value" error={errors.value} hint="Leave empty to keep the current value." prefix={prefix}>
        {(a) => <input {...a} type="password" autocomplete="new-password" value={value} onInput={(e) => setValue(textOf(e))} />}
      </Field>
      <OrgWide checked={orgWide} onChange={setOrgWide} id={`${prefix}-org_wide`} />
      <button type="submit" class="primary" disabled={busy}>
        Save
      </button>
    </form>
  );
}

function OrgWide(props: { checked: boolean; onChange: (v: boolean) => void; id: string }) {
  return (
    <div class="field">
      <label for={props.id}>
        <input id={props.id} type="checkbox" checked={props.checked} onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)} /> Every
        agent of the organisation gets it
      </label>
    </div>
  );
}

function CreateSecret(props: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [description, setDescription] = useState("");
  const [orgWide, setOrgWide] = useState(false);
  const { errors, failure, busy, run } = useSubmit();
  const submit = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      await unwrap(api.POST("/api/secrets", { body: { name, value, description, org_wide: orgWide } }));
      // The value leaves the page once saved.
      setName("");
      setValue("");
      setDescription("");
      setOrgWide(false);
      props.onCreated();
    });
  };
  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="new-secret">
      <h2 id="new-secret">New secret</h2>
      {failure && <Notice kind="error">{failure}</Notice>}
      <Field name="name" label="Name" error={errors.name} hint="The environment variable it becomes, e.g. GITHUB_TOKEN." prefix="secret-new">
        {(a) => <input {...a} type="text" autocomplete="off" value={name} onInput={(e) => setName(textOf(e))} />}
      </Field>
      <Field name="value" label="Value" error={errors.value} prefix="secret-new">
        {(a) => <input {...a} type="password" autocomplete="new-password" value={value} onInput={(e) => setValue(textOf(e))} />}
      </Field>
      <Field name="description" label="Description" error={errors.description} prefix="secret-new">
        {(a) => <input {...a} type="text" value={description} onInput={(e) => setDescription(textOf(e))} />}
      </Field>
      <OrgWide checked={orgWide} onChange={setOrgWide} id="secret-new-org_wide" />
      <button type="submit" class="primary" disabled={busy}>
        Create secret
      </button>
    </form>
  );
}
