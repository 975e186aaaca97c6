import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Field } from "../components/field";
import { Link } from "../components/link";
import { McpConnectionCard, type Targets } from "../components/mcp-connection-card";
import { Notice } from "../components/notice";
import { ApiError, api, describe, everyPage, type McpConnection, type McpPreset, unwrap } from "../lib/api";
import { type AuthChoice, createBody, createLatch, fieldErrorsOf, readCallback, takeReturn } from "../lib/mcp-connections";
import { navigate } from "../lib/router";
import { useLoad } from "../lib/use-load";

const listConnections = () => everyPage((cursor) => unwrap(api.GET("/api/mcp/connections", { params: { query: { limit: 200, cursor } } })));

/**
 * The organisation's MCP connections (EXACT-021): remote servers whose tools agents may call.
 * A list loaded before a click never puts back what the click changed: every answer of a
 * card replaces its connection and outdates any load still in flight.
 */
export function ConnectionsView() {
  const latch = useMemo(createLatch, []);
  const [list, setList] = useState<McpConnection[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = async () => {
    const turn = latch.begin();
    try {
      const rows = await listConnections();
      if (latch.current(turn)) {
        setList(rows);
        setError(null);
      }
    } catch (e) {
      if (latch.current(turn)) setError(describe(e));
    }
  };
  useEffect(() => {
    void reload();
  }, []);
  const targets = useLoad<Targets>(
    async () => ({
      guilds: await everyPage((cursor) => unwrap(api.GET("/api/guilds", { params: { query: { limit: 200, cursor } } }))),
      agents: await everyPage((cursor) => unwrap(api.GET("/api/agents", { params: { query: { limit: 200, cursor } } }))),
    }),
    [],
  );
  const presets = useLoad(async () => (await unwrap(api.GET("/api/mcp/presets"))).data, []);
  const replace = (id: string, next: McpConnection | null) => {
    latch.begin();
    setList((now) => (now ?? []).flatMap((c) => (c.id !== id ? [c] : next ? [next] : [])));
  };
  return (
    <section>
      <h1>Connections</h1>
      <p class="lead">
        Remote MCP servers whose tools agents may call, as <code>slug__tool</code>. Each reaches the whole organisation or only the guilds and agents it is
        granted to. Tokens are stored encrypted and never shown; what a server says about itself and its tools is its own text, shown as such.
      </p>
      {error && <Notice kind="error">Could not load the connections: {error}</Notice>}
      {targets.error && <Notice kind="error">Could not load the guilds and agents: {targets.error}</Notice>}
      {list && list.length === 0 && <p class="muted">No connections yet.</p>}
      {list?.map((c) => (
        <McpConnectionCard key={c.id} connection={c} targets={targets.data ?? { guilds: [], agents: [] }} onChanged={(next) => replace(c.id, next)} />
      ))}
      <AddConnection
        presets={presets.data ?? []}
        onCreated={(created) => {
          setList((now) => [...(now ?? []), created]);
          // A load begun now includes it; one begun before (the first, maybe) no longer applies.
          void reload();
        }}
      />
    </section>
  );
}

const textOf = (e: Event) => (e.currentTarget as HTMLInputElement).value;

function AddConnection(props: { presets: McpPreset[]; onCreated: (c: McpConnection) => void }) {
  const [url, setUrl] = useState("");
  const [slug, setSlug] = useState("");
  const [auth, setAuth] = useState<AuthChoice>("none");
  const [token, setToken] = useState("");
  const [client, setClient] = useState({ id: "", secret: "" });
  const [preset, setPreset] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const chosen = props.presets.find((p) => p.key === preset);
  const choosePreset = (key: string) => {
    setPreset(key);
    const p = props.presets.find((x) => x.key === key);
    if (p) {
      setAuth(p.auth);
      if (!slug) setSlug(p.key);
    }
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    setFailure(null);
    try {
      const created = await unwrap(
        api.POST("/api/mcp/connections", { body: createBody({ url, slug, auth, token, preset, clientId: client.id, clientSecret: client.secret }) }),
      );
      setUrl("");
      setSlug("");
      setToken("");
      setClient({ id: "", secret: "" });
      setPreset("");
      setAuth("none");
      props.onCreated(created);
    } catch (e) {
      const fields = fieldErrorsOf(e);
      if (fields) setErrors(fields);
      else setFailure(describe(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="new-connection">
      <h2 id="new-connection">Add a connection</h2>
      {failure && <Notice kind="error">{failure}</Notice>}
      <Field name="preset" label="Preset" error={errors.preset} hint="A server of the catalog; only its curated tools start enabled." prefix="mcp-new">
        {(a) => (
          <select {...a} value={preset} onChange={(e) => choosePreset((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">None: a server of my own</option>
            {props.presets.map((p) => (
              <option key={p.key} value={p.key}>
                {p.title}
              </option>
            ))}
          </select>
        )}
      </Field>
      {!chosen && (
        <Field name="url" label="Server URL" error={errors.url} hint="Its MCP endpoint, e.g. https://mcp.example.com/mcp." prefix="mcp-new">
          {(a) => <input {...a} type="url" autocomplete="off" value={url} onInput={(e) => setUrl(textOf(e))} />}
        </Field>
      )}
      <Field name="slug" label="Slug" error={errors.slug} hint="The prefix of its tools' names: lowercase letters, digits, _ and -." prefix="mcp-new">
        {(a) => <input {...a} type="text" autocomplete="off" value={slug} onInput={(e) => setSlug(textOf(e))} />}
      </Field>
      <fieldset class="field" data-field="auth" aria-invalid={Boolean(errors.auth)}>
        <legend>Authentication</legend>
        {(["none", "bearer", "oauth"] as const).map((kind) => (
          <label key={kind}>
            <input type="radio" name="mcp-auth" value={kind} checked={auth === kind} disabled={Boolean(chosen)} onChange={() => setAuth(kind)} />{" "}
            {kind === "none" ? "None" : kind === "bearer" ? "Bearer token" : "OAuth"}
          </label>
        ))}
        {errors.auth && (
          <small class="field-error" role="alert">
            {errors.auth}
          </small>
        )}
      </fieldset>
      {auth === "bearer" && (
        <Field name="auth.token" label="Token" error={errors["auth.token"] ?? errors.token} prefix="mcp-new">
          {(a) => <input {...a} type="password" autocomplete="new-password" value={token} onInput={(e) => setToken(textOf(e))} />}
        </Field>
      )}
      {auth === "oauth" && (
        <>
          <p class="muted">Once added, authorise it: the server's sign-in page opens and brings you back here.</p>
          <Field
            name="auth.client.id"
            label="Client ID (optional)"
            error={errors["auth.client.id"]}
            hint="Only for a server without dynamic registration: the client you registered with it, with the redirect URI the authorisation shows."
            prefix="mcp-new"
          >
            {(a) => <input {...a} type="text" autocomplete="off" value={client.id} onInput={(e) => setClient((now) => ({ ...now, id: textOf(e) }))} />}
          </Field>
          {client.id.trim() && (
            <Field name="auth.client.secret" label="Client secret (optional)" error={errors["auth.client.secret"]} prefix="mcp-new">
              {(a) => (
                <input
                  {...a}
                  type="password"
                  autocomplete="new-password"
                  value={client.secret}
                  onInput={(e) => setClient((now) => ({ ...now, secret: textOf(e) }))}
                />
              )}
            </Field>
          )}
        </>
      )}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? "Adding…" : "Add connection"}
      </button>
    </form>
  );
}

/**
 * Where an MCP server's authorization server sends the operator back (`/mcp/callback`): the
 * code and state are posted to the API once, with the operator's token; then back to the page
 * that started, or the refusal is shown.
 */
export function McpCallbackView() {
  const [failure, setFailure] = useState<string | null>(null);
  const callback = readCallback(location.search);
  const sent = useRef(false);
  useEffect(() => {
    if (callback.kind !== "complete" || sent.current) return;
    sent.current = true;
    unwrap(api.POST("/api/mcp/oauth/callback", { body: callback.body })).then(
      () => navigate(takeReturn(), { replace: true }),
      (error: unknown) => setFailure(error instanceof ApiError ? describe(error) : String(error)),
    );
  }, []);
  return (
    <section>
      <h1>Authorising a connection</h1>
      {callback.kind === "complete" && !failure && <p aria-busy="true">Completing the authorisation…</p>}
      {callback.kind === "denied" && (
        <Notice kind="error">
          The authorization server refused: <code>{callback.error}</code> {callback.description && <span class="muted">({callback.description})</span>}
        </Notice>
      )}
      {callback.kind === "incomplete" && (
        <Notice kind="error">The authorization server's redirect lacks {callback.missing.join(", ")}. Authorise again.</Notice>
      )}
      {failure && <Notice kind="error">The connection was not authorised: {failure}</Notice>}
      {(failure || callback.kind !== "complete") && (
        <p>
          <Link href="/connections">Back to the connections</Link>
        </p>
      )}
    </section>
  );
}
