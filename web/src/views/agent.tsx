import { useState } from "preact/hooks";
import { AgentHeader, useAgentPage } from "../components/agent-tabs";
import { Field } from "../components/field";
import { Link } from "../components/link";
import { Notice } from "../components/notice";
import { api, ApiError, describe, unwrap, type Run, type RunKind } from "../lib/api";
import { kindLabel, tokens, usd, when } from "../lib/format";
import { navigate } from "../lib/router";
import { useLoad } from "../lib/use-load";

const KINDS: ReadonlyArray<readonly [RunKind | "", string]> = [["", "All kinds"], ["direct", "Direct chats"], ["group", "Group chats"], ["schedule", "Schedule wake-ups"]];

/** An agent: a new chat, and its History of runs with kind, status and cost. */
export function AgentView(props: { id: string }) {
  const { agent, guild } = useAgentPage(props.id);
  const usage = useLoad(() => unwrap(api.GET("/api/usage", { params: { query: { scope: "agent", id: props.id } } })), [props.id]);
  const [kind, setKind] = useState<RunKind | "">("");

  if (agent.error) return <Notice kind="error">Could not load the agent: {agent.error}</Notice>;
  if (!agent.data) return <p aria-busy="true">Loading…</p>;
  const a = agent.data;

  return (
    <section>
      <AgentHeader agent={a} guild={guild.data} title={a.name} current="chats" />
      <p class="lead">
        Model <code>{a.model}</code>
        {usage.data && <> · {usd(usage.data.totals.cost_usd)} over {usage.data.totals.calls} model calls, {tokens(usage.data.totals.input_tokens + usage.data.totals.output_tokens)} tokens</>}
      </p>
      <NewChat agentId={a.id} />
      <div class="title-row">
        <h2 id="history">History</h2>
        <label class="inline-field">
          Show{" "}
          <select value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as RunKind | "")}>
            {KINDS.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
        </label>
      </div>
      <History key={kind} agentId={a.id} kind={kind} />
    </section>
  );
}

function NewChat(props: { agentId: string }) {
  const [message, setMessage] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = message.trim() ? { message } : {};
      const run = await unwrap(api.POST("/api/agents/{id}/runs", { params: { path: { id: props.agentId } }, body }));
      navigate(`/runs/${run.id}`);
    } catch (e) {
      if (e instanceof ApiError && e.code === "agent.busy") {
        setError("The agent is generating in another run; wait for it to finish or cancel it. Your message is kept.");
      } else {
        setError(describe(e));
      }
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={submit} aria-labelledby="new-chat">
      <h2 id="new-chat">New chat</h2>
      {error && <Notice kind="error">{error}</Notice>}
      <Field name="message" label="First message (optional)" prefix="new-chat">
        {(a) => (
          <textarea
            {...a} rows={3} value={message}
            onInput={(e) => setMessage((e.currentTarget as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void submit(e);
            }}
          />
        )}
      </Field>
      <button type="submit" class="primary" disabled={busy}>Start chat</button>
    </form>
  );
}

function History(props: { agentId: string; kind: RunKind | "" }) {
  const [pages, setPages] = useState<Run[][]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const runsPage = (cursor?: string) =>
    unwrap(api.GET("/api/agents/{id}/runs", { params: { path: { id: props.agentId }, query: { limit: 25, cursor, kind: props.kind || undefined } } }));
  const first = useLoad(async () => {
    const page = await runsPage();
    setPages([page.data]);
    setCursor(page.next_cursor);
    return page;
  }, [props.agentId, props.kind]);
  const [more, setMore] = useState<string | null>(null);

  const loadMore = async () => {
    if (!cursor) return;
    try {
      const page = await runsPage(cursor);
      setPages((p) => [...p, page.data]);
      setCursor(page.next_cursor);
    } catch (e) {
      setMore(describe(e));
    }
  };

  if (first.error) return <Notice kind="error">Could not load the history: {first.error}</Notice>;
  if (first.loading && pages.length === 0) return <p aria-busy="true">Loading…</p>;
  const runs = pages.flat();
  if (runs.length === 0) return <p>No runs yet.</p>;
  return (
    <>
      <table class="list history" aria-describedby="history">
        <thead><tr><th scope="col">Run</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col" class="num">Cost</th><th scope="col">Started</th></tr></thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} data-run={r.id}>
              <td><Link href={`/runs/${r.id}`}>{r.label}</Link></td>
              <td><span class={`badge kind-${r.kind}`}>{kindLabel(r.kind)}</span></td>
              <td><span class={`badge status-${r.status}`}>{r.status}</span>{r.archived_at && <span class="badge status-archived">archived</span>}{r.errors.length > 0 && <span class="badge status-error" title={r.errors.map((e) => e.code).join(", ")}>{r.errors.length} error{r.errors.length > 1 ? "s" : ""}</span>}</td>
              <td class="num">{usd(r.cost_usd)}</td>
              <td>{when(r.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {more && <Notice kind="error">{more}</Notice>}
      {cursor && <button type="button" onClick={loadMore}>Load older runs</button>}
    </>
  );
}
