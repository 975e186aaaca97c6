import { useState } from "preact/hooks";
import { ConfirmDelete } from "../components/confirm";
import { Field } from "../components/field";
import { Notice } from "../components/notice";
import { type ApiToken, api, type CreatedToken, everyPage, unwrap } from "../lib/api";
import { getToken } from "../lib/auth";
import { when } from "../lib/format";
import { type ExpiryChoice, expiryFields, isCurrentToken, tokenState } from "../lib/tokens";
import { useFailure } from "../lib/use-failure";
import { useLoad } from "../lib/use-load";
import { useSubmit } from "../lib/use-submit";

const LIFETIMES = [
  { value: "never", label: "Never" },
  { value: "7", label: "In 7 days" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In a year" },
  { value: "date", label: "On a date…" },
];

/** The organisation's API tokens: create one (its secret shown once), list them, revoke. */
export function TokensView() {
  const list = useLoad(() => everyPage((cursor) => unwrap(api.GET("/api/tokens", { params: { query: { limit: 200, cursor } } }))), []);
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const { failure, attempt } = useFailure();
  const now = new Date();

  const revoke = (token: ApiToken) =>
    attempt(`revoke ${token.name}`, async () => {
      await unwrap(api.DELETE("/api/tokens/{id}", { params: { path: { id: token.id } } }));
      if (created?.id === token.id) setCreated(null);
      await list.reload();
    });

  return (
    <section>
      <h1>API tokens</h1>
      <p class="lead">A token lets a script (or this console) call the API as this organisation. Only its first characters are kept for display.</p>
      {created && <NewSecret token={created} onDismiss={() => setCreated(null)} />}
      {failure && <Notice kind="error">{failure}</Notice>}
      {list.error && <Notice kind="error">Could not load the tokens: {list.error}</Notice>}
      {list.data && (
        <table class="list" data-testid="tokens">
          <caption class="sr-only">API tokens, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Token</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((t) => {
              const state = tokenState(t, now);
              const current = isCurrentToken(t, getToken());
              return (
                <tr key={t.id} data-token={t.name}>
                  <td>
                    {t.name}
                    {current && (
                      <>
                        {" "}
                        <span class="badge">this console</span>
                      </>
                    )}
                  </td>
                  <td>
                    <code class="hash">{t.prefix}…</code>
                  </td>
                  <td>{when(t.created_at)}</td>
                  <td>{when(t.last_used_at)}</td>
                  <td>{t.expires_at ? when(t.expires_at) : "Never"}</td>
                  <td>
                    <span class={`badge status-${state === "active" ? "active" : state === "expired" ? "stub" : "error"}`}>
                      {state === "active" ? "Active" : state === "expired" ? "Expired" : `Revoked ${when(t.revoked_at)}`}
                    </span>
                  </td>
                  <td class="actions">
                    {state !== "revoked" && (
                      <ConfirmDelete
                        verb="Revoke"
                        label="Revoke…"
                        what={current ? `token ${t.name}, which this console is signed in with (you will be signed out)` : `token ${t.name}`}
                        onConfirm={() => revoke(t)}
                      />
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <CreateToken
        onCreated={(t) => {
          setCreated(t);
          void list.reload();
        }}
      />
    </section>
  );
}

/** The new token's secret, shown this once with a copy button. */
function NewSecret(props: { token: CreatedToken; onDismiss: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.token.token);
      setCopied("Copied to the clipboard.");
    } catch {
      setCopied("Copying was refused by the browser: select the token and copy it.");
    }
  };
  return (
    <Notice kind="success" testId="new-token">
      <p>
        <strong>Token {props.token.name} created.</strong> Copy it now: it is not shown again.
      </p>
      <p class="inline-form">
        <label class="sr-only" for="new-token-secret">
          New token
        </label>
        <input id="new-token-secret" type="text" readOnly value={props.token.token} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={props.onDismiss}>
          Done
        </button>
      </p>
      {copied && (
        <p class="muted" role="status">
          {copied}
        </p>
      )}
    </Notice>
  );
}

function CreateToken(props: { onCreated: (token: CreatedToken) => void }) {
  const [name, setName] = useState("");
  const [lifetime, setLifetime] = useState("90");
  const [date, setDate] = useState("");
  const { errors, failure, busy, run } = useSubmit();

  const submit = (event: Event) => {
    event.preventDefault();
    const choice: ExpiryChoice =
      lifetime === "never" ? { kind: "never" } : lifetime === "date" ? { kind: "date", date } : { kind: "days", days: Number(lifetime) };
    return run(async () => {
      props.onCreated(await unwrap(api.POST("/api/tokens", { body: { name, ...expiryFields(choice) } })));
      setName("");
    });
  };

  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="new-token">
      <h2 id="new-token">New token</h2>
      {failure && <Notice kind="error">{failure}</Notice>}
      {errors[""] && <Notice kind="error">{errors[""]}</Notice>}
      <Field name="name" label="Name" error={errors.name} hint="What uses it, e.g. “CI” or “Alice's laptop”." prefix="token-new">
        {(a) => <input {...a} type="text" value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />}
      </Field>
      <Field name="expires_in_days" label="Expires" error={errors.expires_in_days} prefix="token-new">
        {(a) => (
          <select {...a} value={lifetime} onChange={(e) => setLifetime((e.currentTarget as HTMLSelectElement).value)}>
            {LIFETIMES.map((l) => (
              <option key={l.value} value={l.value}>
                {l.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {lifetime === "date" && (
        <Field name="expires_at" label="Expiry date" error={errors.expires_at} hint="The token stops working at the end of that day." prefix="token-new">
          {(a) => <input {...a} type="date" value={date} onInput={(e) => setDate((e.currentTarget as HTMLInputElement).value)} />}
        </Field>
      )}
      <button type="submit" class="primary" disabled={busy}>
        Create token
      </button>
    </form>
  );
}
