import { useState } from "preact/hooks";
import { BarChart, SpendMeter } from "../components/bar-chart";
import { Field } from "../components/field";
import { Link } from "../components/link";
import { Notice } from "../components/notice";
import { api, ApiError, describe, unwrap, type Counters, type Organisation } from "../lib/api";
import { tokens, usd } from "../lib/format";
import { useLoad } from "../lib/use-load";

interface Scoped {
  id: string;
  name: string;
  href: string;
  totals: Counters;
}

/** Rollup counters (UI-010): the organisation, this month against the spend limit, each guild and agent. */
export function UsageView() {
  const org = useLoad(async () => {
    const [usage, organisation] = await Promise.all([unwrap(api.GET("/api/usage", { params: { query: { scope: "org" } } })), unwrap(api.GET("/api/organisation"))]);
    return { usage, organisation };
  }, []);
  const scopes = useLoad(async () => {
    const [guilds, agents] = await Promise.all([unwrap(api.GET("/api/guilds", { params: { query: { limit: 200 } } })), unwrap(api.GET("/api/agents", { params: { query: { limit: 200 } } }))]);
    const of = async (scope: "guild" | "agent", id: string) => (await unwrap(api.GET("/api/usage", { params: { query: { scope, id } } }))).totals;
    const guildRows: Scoped[] = await Promise.all(guilds.data.map(async (g) => ({ id: g.id, name: g.name, href: `/guilds/${g.id}`, totals: await of("guild", g.id) })));
    const agentRows: Scoped[] = await Promise.all(agents.data.map(async (a) => ({ id: a.id, name: a.name, href: `/agents/${a.id}`, totals: await of("agent", a.id) })));
    return { guilds: guildRows, agents: agentRows };
  }, []);

  return (
    <section class="usage">
      <h1>Usage</h1>
      {org.error && <Notice kind="error">Could not load the organisation's usage: {org.error}</Notice>}
      {org.data && org.data.usage.month && (
        <div class="usage-top">
          <section class="card" aria-labelledby="this-month">
            <h2 id="this-month">This month ({org.data.usage.month.month})</h2>
            <p class="big" data-testid="month-cost">{usd(org.data.usage.month.cost_usd)}{org.data.usage.month.limit_usd !== null && <> of {usd(org.data.usage.month.limit_usd)}</>}</p>
            <SpendMeter spent={Number(org.data.usage.month.cost_usd)} limit={org.data.usage.month.limit_usd === null ? null : Number(org.data.usage.month.limit_usd)} />
            <CountersLine counters={org.data.usage.month} />
            <SpendLimit organisation={org.data.organisation} onSaved={() => void org.reload()} />
          </section>
          <section class="card" aria-labelledby="all-time">
            <h2 id="all-time">Organisation, all time</h2>
            <p class="big" data-testid="org-cost">{usd(org.data.usage.totals.cost_usd)}</p>
            <CountersLine counters={org.data.usage.totals} />
          </section>
        </div>
      )}
      {scopes.error && <Notice kind="error">Could not load guild and agent usage: {scopes.error}</Notice>}
      {scopes.loading && !scopes.data && <p aria-busy="true">Loading guilds and agents…</p>}
      {scopes.data && (
        <>
          <BarChart
            title="Cost per agent, all time"
            bars={[...scopes.data.agents].sort((a, b) => Number(b.totals.cost_usd) - Number(a.totals.cost_usd)).slice(0, 12)
              .map((a) => ({ label: a.name, value: Number(a.totals.cost_usd), text: usd(a.totals.cost_usd) }))}
          />
          <ScopeTable title="Guilds" rows={scopes.data.guilds} testId="guild-usage" />
          <ScopeTable title="Agents" rows={scopes.data.agents} testId="agent-usage" />
        </>
      )}
    </section>
  );
}

function CountersLine(props: { counters: Counters }) {
  const c = props.counters;
  return (
    <dl class="counters">
      <div><dt>Model calls</dt><dd>{tokens(c.calls)}</dd></div>
      <div><dt>Input tokens</dt><dd>{tokens(c.input_tokens)}</dd></div>
      <div><dt>Cached input</dt><dd>{tokens(c.cached_input_tokens)}</dd></div>
      <div><dt>Output tokens</dt><dd>{tokens(c.output_tokens)}</dd></div>
      <div><dt>Reasoning tokens</dt><dd>{tokens(c.reasoning_tokens)}</dd></div>
    </dl>
  );
}

function ScopeTable(props: { title: string; rows: Scoped[]; testId: string }) {
  return (
    <table class="list" data-testid={props.testId}>
      <caption>{props.title}</caption>
      <thead>
        <tr><th scope="col">Name</th><th scope="col" class="num">Cost</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Input tokens</th><th scope="col" class="num">Output tokens</th></tr>
      </thead>
      <tbody>
        {props.rows.length === 0 && <tr><td colSpan={5} class="muted">None yet.</td></tr>}
        {props.rows.map((r) => (
          <tr key={r.id}>
            <td><Link href={r.href}>{r.name}</Link></td>
            <td class="num">{usd(r.totals.cost_usd)}</td>
            <td class="num">{tokens(r.totals.calls)}</td>
            <td class="num">{tokens(r.totals.input_tokens)}</td>
            <td class="num">{tokens(r.totals.output_tokens)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The monthly spend limit (USD; empty: none), PATCH /api/organisation. */
function SpendLimit(props: { organisation: Organisation; onSaved: () => void }) {
  const [value, setValue] = useState(props.organisation.monthly_spend_limit_usd === null ? "" : String(Number(props.organisation.monthly_spend_limit_usd)));
  const [error, setError] = useState<string | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setSaved(false);
    const trimmed = value.trim();
    const limit = trimmed === "" ? null : Number(trimmed);
    if (limit !== null && !Number.isFinite(limit)) {
      setError("Enter an amount in USD, or leave it empty for no limit.");
      return;
    }
    try {
      await unwrap(api.PATCH("/api/organisation", { body: { monthly_spend_limit_usd: limit } }));
      setSaved(true);
      props.onSaved();
    } catch (e) {
      setError(e instanceof ApiError && e.code === "validation.failed" ? (e.fieldErrors().monthly_spend_limit_usd ?? describe(e)) : describe(e));
    }
  };
  return (
    <form class="inline-form" onSubmit={submit} noValidate>
      <Field name="monthly_spend_limit_usd" label="Monthly spend limit (USD, empty: none)" error={error} prefix="org">
        {(a) => <input {...a} type="text" inputMode="decimal" value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />}
      </Field>
      <button type="submit">Save limit</button>
      {saved && <span role="status" class="saved">Saved.</span>}
      {props.organisation.spend_ceiling_usd !== null && (
        <small class="hint" data-testid="spend-ceiling">The platform's ceiling is {usd(props.organisation.spend_ceiling_usd)} a month; the lower of the two applies.</small>
      )}
    </form>
  );
}
