import { useState } from "preact/hooks";
import { AgentStatusPanel } from "../components/agent-status";
import { AgentHeader, useAgentPage } from "../components/agent-tabs";
import { Field } from "../components/field";
import { Notice } from "../components/notice";
import { HistoryFilters, RunHistory } from "../components/run-history";
import { HomeSaveAlert } from "../components/sandbox-home";
import { ApiError, api, describe, unwrap } from "../lib/api";
import { COMPOSER_KEYS_HINT, sendsMessage } from "../lib/composer-keys";
import { tokens, usd } from "../lib/format";
import { filterQuery, type HistoryFilter, historyFilter } from "../lib/history-filter";
import { navigate } from "../lib/router";
import { useLoad } from "../lib/use-load";

/** An agent: whether it generates and its next deadlines, a new chat, and its History of runs, filtered as the address says. */
export function AgentView(props: { id: string }) {
  const { agent, guild } = useAgentPage(props.id);
  const usage = useLoad(() => unwrap(api.GET("/api/usage", { params: { query: { scope: "agent", id: props.id } } })), [props.id]);
  const [filter, setFilter] = useState<HistoryFilter>(() => historyFilter(location.search));
  // Bumped when a generation starts or ends, so a run started elsewhere shows in History.
  const [generations, setGenerations] = useState(0);
  const changeFilter = (next: HistoryFilter) => {
    setFilter(next);
    // Replaced, not pushed: Back leaves the page rather than stepping through filters.
    navigate(`/agents/${props.id}${filterQuery(next)}`, { replace: true });
  };

  if (agent.error) return <Notice kind="error">Could not load the agent: {agent.error}</Notice>;
  if (!agent.data) return <p aria-busy="true">Loading…</p>;
  const a = agent.data;

  return (
    <section>
      <AgentHeader agent={a} guild={guild.data} title={a.name} current="chats" />
      <p class="lead">
        Model <code>{a.model}</code>
        {usage.data && (
          <>
            {" "}
            · {usd(usage.data.totals.cost_usd)} over {usage.data.totals.calls} model calls,{" "}
            {tokens(usage.data.totals.input_tokens + usage.data.totals.output_tokens)} tokens
          </>
        )}
      </p>
      <AgentStatusPanel agentId={a.id} onGenerationChange={() => setGenerations((n) => n + 1)} />
      <HomeSaveAlert agentId={a.id} />
      <NewChat agentId={a.id} />
      <div class="title-row">
        <h2 id="history">History</h2>
        <HistoryFilters filter={filter} onChange={changeFilter} />
      </div>
      <RunHistory key={filterQuery(filter)} agentId={a.id} filter={filter} refresh={generations} />
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
      <Field name="message" label="First message (optional)" prefix="new-chat" hint={COMPOSER_KEYS_HINT}>
        {(a) => (
          <textarea
            {...a}
            rows={3}
            value={message}
            onInput={(e) => setMessage((e.currentTarget as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (!sendsMessage(e)) return;
              // An empty box sends nothing from the keyboard (the button still starts an empty chat).
              if (message.trim() && !busy) void submit(e);
              else e.preventDefault();
            }}
          />
        )}
      </Field>
      <button type="submit" class="primary" disabled={busy}>
        Start chat
      </button>
    </form>
  );
}
