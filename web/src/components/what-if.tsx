import { useState } from "preact/hooks";
import { THINKING_LEVELS } from "../lib/agent-settings";
import { api, describe, type ToolCall, unwrap, type Variant } from "../lib/api";
import { prettyArguments, tokens, usd } from "../lib/format";
import { useRead } from "../lib/use-read";
import { diffText, diffToolCalls } from "../lib/variant-diff";
import { emptyDraft, MAX_VARIANTS_PER_REQUEST, settingsLabel, type VariantDraft, variantBodies } from "../lib/what-if";

/** The recorded answer the variants are compared with. */
export interface RecordedAnswer {
  content: string;
  toolCalls: ToolCall[];
  model: string;
}

/**
 * "What if…" under an assistant row's exact prompt: the same prompt sent again with changed
 * settings, side by side with the recorded answer (POST …/variants). Variants never run tools
 * and never touch the run; their cost counts as usage.
 */
export function WhatIf(props: { runId: string; seq: number; systemPrompt: string; recorded: RecordedAnswer }) {
  const [drafts, setDrafts] = useState<VariantDraft[]>([emptyDraft(props.systemPrompt)]);
  const [results, setResults] = useState<Variant[] | null>(null);
  const { error, setError, read } = useRead();
  const [running, setRunning] = useState(false);
  const path = { params: { path: { id: props.runId, seq: props.seq } } };

  const load = async (event: Event) => {
    if (!(event.currentTarget as HTMLDetailsElement).open || results) return;
    const page = await read(() =>
      unwrap(api.GET("/api/runs/{id}/messages/{seq}/variants", { params: { ...path.params, query: { limit: MAX_VARIANTS_PER_REQUEST } } })),
    );
    if (!page) return;
    // The newest batch, as it was asked for.
    const batch = page.data[0]?.batch_id;
    setResults(page.data.filter((v) => v.batch_id === batch).reverse());
  };
  const change = (i: number, field: keyof VariantDraft, value: string) => setDrafts(drafts.map((d, j) => (j === i ? { ...d, [field]: value } : d)));
  const run = async (event: Event) => {
    event.preventDefault();
    const bodies = variantBodies(drafts, props.systemPrompt);
    if (!bodies.ok) return setError(bodies.error);
    setError(null);
    setRunning(true);
    try {
      setResults((await unwrap(api.POST("/api/runs/{id}/messages/{seq}/variants", { ...path, body: { variants: bodies.variants } }))).data);
    } catch (e) {
      setError(describe(e));
    } finally {
      setRunning(false);
    }
  };

  return (
    <details class="what-if" onToggle={load}>
      <summary>What if…</summary>
      <form onSubmit={run} aria-label="Variants">
        <p class="hint">
          Send this exact prompt again with other settings, up to {MAX_VARIANTS_PER_REQUEST} variants at once. Blank fields keep the recorded call's. Variants
          never run tools and never change the run; their cost counts as usage.
        </p>
        <div class="variant-drafts">
          {drafts.map((d, i) => (
            <fieldset key={i} class="variant-draft">
              <legend>Variant {i + 1}</legend>
              <label class="variant-field">
                Model
                <input value={d.model} placeholder={props.recorded.model} onInput={(e) => change(i, "model", e.currentTarget.value)} />
              </label>
              <label class="variant-field">
                Temperature
                <input
                  inputMode="decimal"
                  value={d.temperature}
                  placeholder="provider default"
                  onInput={(e) => change(i, "temperature", e.currentTarget.value)}
                />
              </label>
              <label class="variant-field">
                Thinking level
                <select value={d.thinking_level} onChange={(e) => change(i, "thinking_level", e.currentTarget.value)}>
                  <option value="">as recorded</option>
                  {THINKING_LEVELS.map((level) => (
                    <option key={level} value={level}>
                      {level}
                    </option>
                  ))}
                </select>
              </label>
              <label class="variant-field">
                Max tokens
                <input
                  inputMode="numeric"
                  value={d.max_tokens}
                  placeholder="provider default"
                  onInput={(e) => change(i, "max_tokens", e.currentTarget.value)}
                />
              </label>
              <label class="variant-field">
                System prompt
                <textarea rows={3} value={d.system_prompt} onInput={(e) => change(i, "system_prompt", e.currentTarget.value)} />
              </label>
              {drafts.length > 1 && (
                <button type="button" class="secondary" onClick={() => setDrafts(drafts.filter((_, j) => j !== i))}>
                  Remove variant {i + 1}
                </button>
              )}
            </fieldset>
          ))}
        </div>
        <div class="actions">
          <button
            type="button"
            class="secondary"
            disabled={drafts.length >= MAX_VARIANTS_PER_REQUEST}
            onClick={() => setDrafts([...drafts, emptyDraft(props.systemPrompt)])}
          >
            Add variant
          </button>
          <button type="submit" disabled={running} aria-busy={running}>
            {running ? "Running…" : "Run variants"}
          </button>
        </div>
        {error && <p class="field-error">{error}</p>}
      </form>
      {results && results.length > 0 && <Comparison recorded={props.recorded} variants={results} />}
    </details>
  );
}

/** The recorded answer and each variant's, side by side, each variant's text and calls diffed against the recorded ones. */
function Comparison(props: { recorded: RecordedAnswer; variants: Variant[] }) {
  return (
    <div class="variant-grid" role="list" aria-label="Answers side by side">
      <section class="variant-answer" role="listitem" aria-label="Recorded answer">
        <h4>Recorded</h4>
        <p class="muted">{props.recorded.model}</p>
        <div class="text">{props.recorded.content || <span class="muted">(no text)</span>}</div>
        {props.recorded.toolCalls.map((call) => (
          <pre key={call.id} class="variant-call">
            {call.function.name}({prettyArguments(call.function.arguments)})
          </pre>
        ))}
      </section>
      {props.variants.map((v, i) => (
        <section key={v.id} class="variant-answer" role="listitem" aria-label={`Variant ${i + 1}`} data-status={v.status}>
          <h4>Variant {i + 1}</h4>
          <p class="muted">{settingsLabel(v.settings)}</p>
          <p class="usage" data-testid="variant-usage">
            {tokens(v.input_tokens)} in · {tokens(v.output_tokens)} out · {usd(v.cost_usd)}
            {v.latency_ms !== null ? ` · ${(v.latency_ms / 1000).toFixed(1)} s` : ""}
          </p>
          {v.status === "pending" && <p aria-busy="true">Running…</p>}
          {v.error && (
            <p class="field-error">
              {v.error.code}: {v.error.message}
            </p>
          )}
          {v.answer && <AnswerDiff recorded={props.recorded} answer={v.answer} />}
        </section>
      ))}
    </div>
  );
}

function AnswerDiff(props: { recorded: RecordedAnswer; answer: NonNullable<Variant["answer"]> }) {
  const parts = diffText(props.recorded.content, props.answer.content ?? "");
  const calls = diffToolCalls(props.recorded.toolCalls, props.answer.tool_calls);
  return (
    <>
      <div class="text variant-text" data-testid="variant-text">
        {parts.map((p, i) =>
          p.kind === "same" ? (
            <span key={i}>{p.text}</span>
          ) : p.kind === "added" ? (
            <ins key={i} class="diff-add">
              {p.text}
            </ins>
          ) : (
            <del key={i} class="diff-remove">
              {p.text}
            </del>
          ),
        )}
      </div>
      {calls.map((c, i) => (
        <pre key={i} class={`variant-call call-${c.kind}`} data-call-change={c.kind}>
          {c.kind === "changed" ? `${c.before.name}(${prettyArguments(c.before.arguments)}) → ` : c.kind === "removed" ? "− " : c.kind === "added" ? "+ " : ""}
          {c.name}({prettyArguments(c.arguments)})
        </pre>
      ))}
    </>
  );
}
