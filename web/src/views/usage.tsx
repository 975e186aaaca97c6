import { useState } from "preact/hooks";
import { parseDateRange } from "../../../core/shared/date-range";
import { BarChart, SpendMeter } from "../components/bar-chart";
import { CounterCells, CounterHeads } from "../components/counter-cells";
import { DailyChart } from "../components/daily-chart";
import { Field } from "../components/field";
import { Link } from "../components/link";
import { Notice } from "../components/notice";
import { ApiError, api, type Counters, describe, type Organisation, unwrap } from "../lib/api";
import { tokens, usd } from "../lib/format";
import { type DayRange, PRESETS, type PresetId, presetOf, presetRange } from "../lib/usage-chart";
import { useLoad } from "../lib/use-load";

/** Rollup counters (UI-010) for this month and all time; the daily series, and usage by guild and agent, over a chosen range. */
export function UsageView() {
  const org = useLoad(async () => {
    const [usage, organisation] = await Promise.all([
      unwrap(api.GET("/api/usage", { params: { query: { scope: "org" } } })),
      unwrap(api.GET("/api/organisation")),
    ]);
    return { usage, organisation };
  }, []);
  // The range and its pressed button are set together, on the click itself: nothing that
  // arrives later (an answer for an earlier range) decides which range is shown.
  const [selection, setSelection] = useState<RangeSelection>(() => ({ range: presetRange("month", new Date()), preset: "month" }));
  const { range } = selection;
  const [scope, setScope] = useState("org");
  const summary = useLoad(
    (signal) => unwrap(api.GET("/api/usage/summary", { params: { query: { from: range.from, to: range.to } }, signal })),
    [range.from, range.to],
  );
  const daily = useLoad(
    (signal) => {
      const [kind, id] = scope.split(":") as ["org" | "guild" | "agent", string | undefined];
      return unwrap(api.GET("/api/usage/daily", { params: { query: { scope: kind, id, from: range.from, to: range.to } }, signal }));
    },
    [range.from, range.to, scope],
  );
  const limit = org.data?.usage.month?.limit_usd ?? null;
  const guildNames = new Map(summary.data?.guilds.map((g) => [g.id, g.name]));

  return (
    <section class="usage">
      <h1>Usage</h1>
      {org.error && <Notice kind="error">Could not load the organisation's usage: {org.error}</Notice>}
      {org.data?.usage.month && (
        <div class="usage-top">
          <section class="card" aria-labelledby="this-month">
            <h2 id="this-month">This month ({org.data.usage.month.month})</h2>
            <p class="big" data-testid="month-cost">
              {usd(org.data.usage.month.cost_usd)}
              {org.data.usage.month.limit_usd !== null && <> of {usd(org.data.usage.month.limit_usd)}</>}
            </p>
            <SpendMeter
              spent={Number(org.data.usage.month.cost_usd)}
              limit={org.data.usage.month.limit_usd === null ? null : Number(org.data.usage.month.limit_usd)}
            />
            <CountersLine counters={org.data.usage.month} />
            <SpendLimit organisation={org.data.organisation} onSaved={() => void org.reload()} />
          </section>
          <section class="card" aria-labelledby="all-time">
            <h2 id="all-time">Organisation, all time</h2>
            <p class="big" data-testid="org-cost">
              {usd(org.data.usage.totals.cost_usd)}
            </p>
            <CountersLine counters={org.data.usage.totals} />
          </section>
        </div>
      )}

      {org.data?.organisation.platform_operator && <PlatformUsageSection />}

      <section aria-labelledby="over-time">
        <h2 id="over-time">Usage by day</h2>
        <RangeControl selection={selection} onChange={setSelection} />
        <div class="field scope-field">
          <label for="usage-scope">Chart for</label>
          <select id="usage-scope" value={scope} onChange={(e) => setScope((e.currentTarget as HTMLSelectElement).value)}>
            <option value="org">The organisation</option>
            {summary.data?.guilds.map((g) => (
              <option key={g.id} value={`guild:${g.id}`}>
                Guild: {g.name}
              </option>
            ))}
            {summary.data?.agents.map((a) => (
              <option key={a.id} value={`agent:${a.id}`}>
                Agent: {a.name} ({guildNames.get(a.guild_id) ?? "guild"})
              </option>
            ))}
          </select>
        </div>
        {daily.error && <Notice kind="error">Could not load the daily usage: {daily.error}</Notice>}
        {daily.loading && !daily.data && <p aria-busy="true">Loading the daily usage…</p>}
        {daily.data && (
          <DailyChart
            title={`Cost per day, ${daily.data.from} to ${daily.data.to} (UTC)`}
            days={daily.data.data}
            monthToDate={daily.data.scope === "org"}
            limit={limit === null ? null : Number(limit)}
          />
        )}
      </section>

      {summary.error && <Notice kind="error">Could not load usage by guild and agent: {summary.error}</Notice>}
      {summary.loading && !summary.data && <p aria-busy="true">Loading guilds and agents…</p>}
      {summary.data && (
        <section aria-labelledby="by-scope">
          <h2 id="by-scope">
            By guild and agent, {summary.data.from} to {summary.data.to}
          </h2>
          <p class="big" data-testid="range-cost">
            {usd(summary.data.totals.cost_usd)}
          </p>
          <CountersLine counters={summary.data.totals} />
          <BarChart
            title="Cost per agent in this range"
            bars={summary.data.agents
              .filter((a) => a.calls > 0)
              .slice(0, 12)
              .map((a) => ({ label: a.name, value: Number(a.cost_usd), text: usd(a.cost_usd) }))}
          />
          <ScopeTable title="Guilds" testId="guild-usage" rows={summary.data.guilds.map((g) => ({ ...g, href: `/guilds/${g.id}` }))} />
          <ScopeTable
            title="Agents"
            testId="agent-usage"
            rows={summary.data.agents.map((a) => ({ ...a, href: `/agents/${a.id}`, guild: guildNames.get(a.guild_id) ?? "" }))}
          />
          <p class="hint">
            Figures for a range come from the priced replies still stored; a deleted agent's or guild's replies go with it, while the all-time counters keep
            their cost.
          </p>
        </section>
      )}
    </section>
  );
}

/** The whole platform's counters (GET /api/platform/usage), shown to the platform's operators only (decision 0021). */
function PlatformUsageSection() {
  const platform = useLoad(() => unwrap(api.GET("/api/platform/usage")), []);
  return (
    <section aria-labelledby="platform-usage" data-testid="platform-usage">
      <h2 id="platform-usage">Whole platform</h2>
      <p class="hint">Every organisation's priced replies: you see them as the platform's operator.</p>
      {platform.error && <Notice kind="error">Could not load the platform's usage: {platform.error}</Notice>}
      {platform.loading && !platform.data && <p aria-busy="true">Loading the platform's usage…</p>}
      {platform.data && (
        <div class="usage-top">
          <section class="card" aria-labelledby="platform-month">
            <h3 id="platform-month">This month ({platform.data.month.month})</h3>
            <p class="big" data-testid="platform-month-cost">
              {usd(platform.data.month.cost_usd)}
            </p>
            <CountersLine counters={platform.data.month} />
            <p class="hint">
              {platform.data.month.organisations.toLocaleString("en-US")} organisation{platform.data.month.organisations === 1 ? "" : "s"} with usage this
              month.
            </p>
          </section>
          <section class="card" aria-labelledby="platform-all-time">
            <h3 id="platform-all-time">All time</h3>
            <p class="big" data-testid="platform-cost">
              {usd(platform.data.totals.cost_usd)}
            </p>
            <CountersLine counters={platform.data.totals} />
          </section>
        </div>
      )}
    </section>
  );
}

/** The range shown, and the preset button pressed for it (none for a typed range that is no preset). */
interface RangeSelection {
  range: DayRange;
  preset: PresetId | undefined;
}

/** The range of the daily chart and the tables: a preset, or any from/to checked as the API checks them. */
function RangeControl(props: { selection: RangeSelection; onChange: (selection: RangeSelection) => void }) {
  const [from, setFrom] = useState(props.selection.range.from);
  const [to, setTo] = useState(props.selection.range.to);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const apply = (next: DayRange, preset: PresetId | undefined) => {
    setFrom(next.from);
    setTo(next.to);
    setErrors({});
    props.onChange({ range: next, preset });
  };
  const submit = (event: Event) => {
    event.preventDefault();
    const parsed = parseDateRange({ from, to }, new Date());
    if ("issues" in parsed) {
      setErrors(Object.fromEntries(parsed.issues.map((i) => [i.field, i.message])));
      return;
    }
    const next = { from: parsed.range.from, to: parsed.range.to };
    apply(next, presetOf(next, new Date()));
  };
  return (
    <form class="inline-form range-control" onSubmit={submit} noValidate aria-label="Date range">
      <div class="presets" role="group" aria-label="Range presets">
        {PRESETS.map((p) => (
          <button key={p.id} type="button" aria-pressed={props.selection.preset === p.id} onClick={() => apply(presetRange(p.id, new Date()), p.id)}>
            {p.label}
          </button>
        ))}
      </div>
      <Field name="from" label="From (UTC)" error={errors.from} prefix="usage">
        {(a) => <input {...a} type="date" value={from} onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)} />}
      </Field>
      <Field name="to" label="To (UTC)" error={errors.to} prefix="usage">
        {(a) => <input {...a} type="date" value={to} onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)} />}
      </Field>
      <button type="submit">Show range</button>
    </form>
  );
}

interface ScopeRow extends Counters {
  id: string;
  name: string;
  href: string;
  all_time_cost_usd: string;
  guild?: string;
}

function CountersLine(props: { counters: Counters }) {
  const c = props.counters;
  return (
    <dl class="counters">
      <div>
        <dt>Model calls</dt>
        <dd>{tokens(c.calls)}</dd>
      </div>
      <div>
        <dt>Input tokens</dt>
        <dd>{tokens(c.input_tokens)}</dd>
      </div>
      <div>
        <dt>Cached input</dt>
        <dd>{tokens(c.cached_input_tokens)}</dd>
      </div>
      <div>
        <dt>Output tokens</dt>
        <dd>{tokens(c.output_tokens)}</dd>
      </div>
      <div>
        <dt>Reasoning tokens</dt>
        <dd>{tokens(c.reasoning_tokens)}</dd>
      </div>
    </dl>
  );
}

function ScopeTable(props: { title: string; rows: ScopeRow[]; testId: string }) {
  const withGuild = props.rows.some((r) => r.guild !== undefined);
  return (
    <table class="list" data-testid={props.testId}>
      <caption>{props.title}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <CounterHeads />
          <th scope="col" class="num">
            All time
          </th>
          {withGuild && <th scope="col">Guild</th>}
        </tr>
      </thead>
      <tbody>
        {props.rows.length === 0 && (
          <tr>
            <td colSpan={withGuild ? 7 : 6} class="muted">
              None yet.
            </td>
          </tr>
        )}
        {props.rows.map((r) => (
          <tr key={r.id}>
            <td>
              <Link href={r.href}>{r.name}</Link>
            </td>
            <CounterCells counters={r} />
            <td class="num">{usd(r.all_time_cost_usd)}</td>
            {withGuild && <td>{r.guild}</td>}
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
      {saved && (
        <span role="status" class="saved">
          Saved.
        </span>
      )}
      {props.organisation.spend_ceiling_usd !== null && (
        <small class="hint" data-testid="spend-ceiling">
          The platform's ceiling is {usd(props.organisation.spend_ceiling_usd)} a month; the lower of the two applies.
        </small>
      )}
    </form>
  );
}
