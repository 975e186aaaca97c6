import { useState } from "preact/hooks";
import { ConfirmDelete } from "../components/confirm";
import { Field } from "../components/field";
import { Link } from "../components/link";
import { Notice } from "../components/notice";
import { api, type Guild, unwrap } from "../lib/api";
import { when } from "../lib/format";
import { navigate } from "../lib/router";
import { useFailure } from "../lib/use-failure";
import { useLoad } from "../lib/use-load";
import { useSubmit } from "../lib/use-submit";

/** The organisation's guilds: list, create, delete. */
export function GuildsView() {
  const guilds = useLoad(() => unwrap(api.GET("/api/guilds", { params: { query: { limit: 200 } } })), []);
  const { failure, attempt } = useFailure();

  const remove = (guild: Guild) =>
    attempt(`delete ${guild.name}`, async () => {
      await unwrap(api.DELETE("/api/guilds/{id}", { params: { path: { id: guild.id } } }));
      await guilds.reload();
    });

  return (
    <section>
      <h1>Guilds</h1>
      {failure && <Notice kind="error">{failure}</Notice>}
      {guilds.error && <Notice kind="error">Could not load the guilds: {guilds.error}</Notice>}
      {guilds.data && guilds.data.data.length === 0 && <p>No guild yet. Create the first one below.</p>}
      {guilds.data && guilds.data.data.length > 0 && (
        <table class="list">
          <caption class="sr-only">Guilds, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {guilds.data.data.map((g) => (
              <tr key={g.id} data-guild={g.name}>
                <td>
                  <Link href={`/guilds/${g.id}`}>{g.name}</Link>
                </td>
                <td>{g.description || <span class="muted">–</span>}</td>
                <td>{when(g.created_at)}</td>
                <td class="actions">
                  <ConfirmDelete what={`guild ${g.name} with its agents and runs`} onConfirm={() => remove(g)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <CreateGuild onCreated={(g) => navigate(`/guilds/${g.id}`)} />
    </section>
  );
}

function CreateGuild(props: { onCreated: (guild: Guild) => void }) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const { errors, failure, busy, run } = useSubmit();

  const submit = (event: Event) => {
    event.preventDefault();
    return run(async () => props.onCreated(await unwrap(api.POST("/api/guilds", { body: { name, description } }))));
  };

  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="new-guild">
      <h2 id="new-guild">New guild</h2>
      {failure && <Notice kind="error">{failure}</Notice>}
      {errors[""] && <Notice kind="error">{errors[""]}</Notice>}
      <Field name="name" label="Name" error={errors.name} prefix="guild-new">
        {(a) => <input {...a} type="text" value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />}
      </Field>
      <Field name="description" label="Description" error={errors.description} prefix="guild-new">
        {(a) => <textarea {...a} rows={2} value={description} onInput={(e) => setDescription((e.currentTarget as HTMLTextAreaElement).value)} />}
      </Field>
      <button type="submit" class="primary" disabled={busy}>
        Create guild
      </button>
    </form>
  );
}
