import { useState } from "preact/hooks";
import { api, describe, type McpConnection, type McpTool, unwrap } from "../lib/api";
import { when } from "../lib/format";
import { rememberReturn, type SignInPlace, samePlace, shownDescription, signInText } from "../lib/mcp-connections";
import { ConfirmDelete } from "./confirm";
import { GrantForm, type GrantTargets } from "./grant-form";
import { Notice } from "./notice";

export type Targets = GrantTargets;

const STATUS: Record<McpConnection["status"], string> = {
  pending: "not discovered yet",
  ready: "ready",
  needs_auth: "needs authorisation",
  error: "error",
};

/**
 * Text a server sent (its instructions, a tool's description): shown as it came, in a muted
 * block that says whose words they are. It is never rendered as markup.
 */
export function FromServer(props: { text: string; label?: string }) {
  if (!props.text) return null;
  return (
    <blockquote class="from-server muted" data-from-server="">
      <small class="from-server-label">{props.label ?? "From the server (untrusted)"}</small>
      <span>{shownDescription(props.text)}</span>
    </blockquote>
  );
}

/** "Signs in at <origin>", with the token endpoint's or issuer's origin apart when they differ. */
export function SignsInAt(props: { place: SignInPlace | undefined | null }) {
  const text = signInText(props.place);
  if (!text) return null;
  return (
    <span class="muted" data-testid="signs-in-at">
      Signs in at <code>{text.signsInAt}</code>
      {text.apart.map((part) => (
        <strong key={part} class="sign-in-apart">
          {" "}
          · {part}
        </strong>
      ))}
    </span>
  );
}

/**
 * One connection: its status, authorisation (OAuth leaves for the authorization server and
 * comes back through /mcp/callback), refresh, tools to enable or disable, grants, delete.
 * `onChanged(next)` hands the connection the API answered back to the list; a tool's box
 * shows the operator's click until its own answer comes, whatever answers arrive meanwhile.
 */
export function McpConnectionCard(props: { connection: McpConnection; targets: Targets; onChanged: (next: McpConnection | null) => void }) {
  const c = props.connection;
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  // The operator's clicks not yet answered, by remote name: they win over any older answer.
  const [clicked, setClicked] = useState<Record<string, boolean>>({});
  // An authorisation whose sign-in place the operator has not seen yet: shown before leaving.
  const [unseen, setUnseen] = useState<{ url: string; place: SignInPlace } | null>(null);
  const path = { params: { path: { id: c.id } } };

  const act = async (what: string, action: () => Promise<McpConnection | null>) => {
    setFailure(null);
    setBusy(what);
    try {
      props.onChanged(await action());
    } catch (e) {
      setFailure(`Could not ${what}: ${describe(e)}`);
    } finally {
      setBusy(null);
    }
  };

  const leave = (url: string) => {
    rememberReturn(location.pathname);
    location.assign(url);
  };

  // The operator goes straight on only to the place shown beside the button; a new or changed one is shown first.
  const authorise = () =>
    act("start the authorisation", async () => {
      const started = await unwrap(api.POST("/api/mcp/connections/{id}/authorize", path));
      if (samePlace(started.authorization_server, c.auth.authorization_server)) leave(started.authorization_url);
      else setUnseen({ url: started.authorization_url, place: started.authorization_server });
      return c;
    });

  const toggle = async (tool: McpTool, enabled: boolean) => {
    setClicked((now) => ({ ...now, [tool.remote_name]: enabled }));
    setFailure(null);
    try {
      const next = await unwrap(api.PATCH("/api/mcp/connections/{id}", { ...path, body: { tools: [{ remote_name: tool.remote_name, enabled }] } }));
      props.onChanged(next);
    } catch (e) {
      setFailure(`Could not ${enabled ? "enable" : "disable"} ${tool.remote_name}: ${describe(e)}`);
    } finally {
      // Only this click's own mark is cleared: a later click on the same tool keeps its own.
      setClicked((now) => {
        if (now[tool.remote_name] !== enabled) return now;
        const { [tool.remote_name]: _, ...rest } = now;
        return rest;
      });
    }
  };

  const nameOf = (g: McpConnection["grants"][number]) =>
    g.guild_id
      ? `Guild ${props.targets.guilds.find((x) => x.id === g.guild_id)?.name ?? g.guild_id}`
      : `Agent ${props.targets.agents.find((x) => x.id === g.agent_id)?.name ?? g.agent_id}`;

  return (
    <article class="card mcp-connection" data-connection={c.slug} aria-labelledby={`mcp-${c.id}`}>
      <h2 id={`mcp-${c.id}`}>
        <code>{c.slug}</code>{" "}
        <span class={`badge status-mcp-${c.status}`} data-testid="connection-status">
          {STATUS[c.status]}
        </span>
        {c.org_wide && <span class="badge">organisation-wide</span>}
        <span class="badge">{c.auth.kind === "none" ? "no auth" : c.auth.kind === "bearer" ? "bearer token" : "OAuth"}</span>
      </h2>
      <p class="muted">
        <code>{c.url}</code>
        {c.preset && <> · preset {c.preset}</>} · {c.discovered_at ? `discovered ${when(c.discovered_at)}` : "never discovered"}
        {c.auth.client && (
          <>
            {" "}
            · OAuth client <code>{c.auth.client.id}</code> ({c.auth.client.registered_by === "operator" ? "yours" : "registered by the platform"})
          </>
        )}
      </p>
      {c.last_error && <Notice kind={c.status === "needs_auth" ? "warning" : "error"}>{c.last_error}</Notice>}
      {failure && <Notice kind="error">{failure}</Notice>}
      {unseen && (
        <Notice kind="warning">
          <SignsInAt place={unseen.place} />. Continue only if that is where this server's accounts are.{" "}
          <button type="button" class="primary" onClick={() => leave(unseen.url)}>
            Continue to sign in
          </button>{" "}
          <button type="button" onClick={() => setUnseen(null)}>
            Cancel
          </button>
        </Notice>
      )}
      <FromServer text={c.from_server.instructions ?? ""} label="Instructions from the server (untrusted)" />
      <p class="inline-form">
        {c.auth.kind === "oauth" && (
          <button type="button" class={c.status === "needs_auth" ? "primary" : ""} disabled={busy !== null} onClick={() => void authorise()}>
            {/* Authorised once when its tools were ever discovered: an operator's client secret alone is a credential too. */}
            {c.discovered_at ? "Authorise again" : "Authorise"}
          </button>
        )}
        {c.auth.kind === "oauth" && !unseen && <SignsInAt place={c.auth.authorization_server} />}
        <button type="button" disabled={busy !== null} onClick={() => void act("refresh", () => unwrap(api.POST("/api/mcp/connections/{id}/refresh", path)))}>
          {busy === "refresh" ? "Refreshing…" : "Refresh tools"}
        </button>
        <ConfirmDelete
          what={`connection ${c.slug}`}
          onConfirm={() =>
            act("delete it", async () => {
              await unwrap(api.DELETE("/api/mcp/connections/{id}", path));
              return null;
            })
          }
        />
      </p>
      <h3>Tools</h3>
      {c.tools.length === 0 && <p class="muted">No tools discovered.</p>}
      <ul class="mcp-tools" aria-label={`Tools of ${c.slug}`}>
        {c.tools.map((t) => {
          const enabled = clicked[t.remote_name] ?? t.enabled;
          const id = `tool-${c.id}-${t.position}`;
          return (
            <li key={t.remote_name} data-tool={t.remote_name}>
              <input id={id} type="checkbox" checked={enabled} onChange={(e) => void toggle(t, (e.currentTarget as HTMLInputElement).checked)} />{" "}
              <label for={id}>
                <code>{t.name}</code> {t.from_server.title && <span class="muted">({t.from_server.title})</span>}
              </label>
              <FromServer text={t.from_server.description} />
            </li>
          );
        })}
      </ul>
      <h3>Grants</h3>
      {c.org_wide && <p class="muted">Every agent of the organisation gets it.</p>}
      <ul class="grants" aria-label={`Grants of ${c.slug}`}>
        {c.grants.map((g) => (
          <li key={g.id}>
            {nameOf(g)}{" "}
            <button
              type="button"
              class="danger-outline"
              onClick={() =>
                void act("revoke the grant", async () => {
                  await unwrap(api.DELETE("/api/mcp/connections/{id}/grants/{grant_id}", { params: { path: { id: c.id, grant_id: g.id } } }));
                  return unwrap(api.GET("/api/mcp/connections/{id}", path));
                })
              }
            >
              Revoke
            </button>
          </li>
        ))}
      </ul>
      <GrantForm
        formId={`mcp-grant-${c.id}`}
        grants={c.grants}
        targets={props.targets}
        onGrant={(body) =>
          act("grant it", async () => {
            await unwrap(api.POST("/api/mcp/connections/{id}/grants", { ...path, body }));
            return unwrap(api.GET("/api/mcp/connections/{id}", path));
          })
        }
      />
    </article>
  );
}
