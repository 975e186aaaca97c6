import { useState } from "preact/hooks";
import {
  agentBody,
  FLAGS,
  type Flag,
  LABELS,
  NUMBERS,
  type NumberField,
  TEXT,
  type TextField,
  THINKING_LEVELS,
  type Values,
  valuesOf,
} from "../lib/agent-settings";
import type { Agent, AgentCreate } from "../lib/api";
import { type HarnessField, harnessBody, harnessErrors, harnessShown, harnessValuesOf } from "../lib/task-harness";
import { useSubmit } from "../lib/use-submit";
import { Field, FormActions, Toggle } from "./field";
import { Notice } from "./notice";
import { TaskHarnessFields } from "./task-harness-fields";

/**
 * Agent settings, for the create dialog and the Settings page: identity, the model
 * section with its run limits, the capability flags and a coding agent's task harness.
 * A 422 shows each message beside the field it names.
 */
export function AgentForm(props: { agent: Agent | null; submitLabel: string; onSubmit: (body: AgentCreate) => Promise<void> }) {
  const [values, setValues] = useState<Values>(() => valuesOf(props.agent));
  const [harness, setHarness] = useState(() => harnessValuesOf(props.agent?.task_harness));
  const { errors, failure, setFailure, busy, run } = useSubmit();
  const [saved, setSaved] = useState(false);
  const prefix = props.agent ? "agent-edit" : "agent-new";

  const set = (key: keyof Values, value: string | boolean) => {
    setValues((v) => ({ ...v, [key]: value }));
    setSaved(false);
  };
  const setHarnessField = (field: HarnessField, value: string) => {
    setHarness((h) => ({ ...h, [field]: value }));
    setSaved(false);
  };

  const submit = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      const harnessPatch = harnessBody(harness, props.agent?.task_harness);
      const body: AgentCreate = { ...agentBody(values, props.agent), ...(harnessPatch ? { task_harness: harnessPatch } : {}) };
      if (props.agent && Object.keys(body).length === 0) {
        setFailure("Nothing changed.");
        return;
      }
      await props.onSubmit(body);
      setSaved(true);
    });
  };

  const shown = new Set<string>([...TEXT, ...NUMBERS, ...FLAGS, "thinking_level"]);
  const showHarness = harnessShown(values.coding, harness);
  const elsewhere = Object.entries(errors).filter(([field]) => !shown.has(field) && !(showHarness && field.startsWith("task_harness")));
  const text = (key: TextField, hint?: string, multiline = false) => (
    <Field name={key} label={LABELS[key]!} error={errors[key]} prefix={prefix} {...(hint ? { hint } : {})}>
      {(a) =>
        multiline ? (
          <textarea
            {...a}
            rows={key === "instructions" ? 4 : 2}
            value={values[key]}
            onInput={(e) => set(key, (e.currentTarget as HTMLTextAreaElement).value)}
          />
        ) : (
          <input {...a} type="text" value={values[key]} onInput={(e) => set(key, (e.currentTarget as HTMLInputElement).value)} />
        )
      }
    </Field>
  );
  const number = (key: NumberField) => (
    <Field name={key} label={LABELS[key]!} error={errors[key]} prefix={prefix}>
      {(a) => <input {...a} type="text" inputMode="numeric" value={values[key]} onInput={(e) => set(key, (e.currentTarget as HTMLInputElement).value)} />}
    </Field>
  );
  const flag = (key: Flag) => (
    <Toggle name={key} label={LABELS[key]!} checked={values[key]} error={errors[key]} prefix={prefix} onChange={(v) => set(key, v)} />
  );

  return (
    <form class="agent-form" onSubmit={submit} noValidate>
      {failure && <Notice kind={failure === "Nothing changed." ? "info" : "error"}>{failure}</Notice>}
      {elsewhere.length > 0 && <Notice kind="error">{elsewhere.map(([f, m]) => `${f || "body"}: ${m}`).join("; ")}</Notice>}
      <div class="form-grid">
        <fieldset>
          <legend>Agent</legend>
          {text("name")}
          {text("description", undefined, true)}
          {text("instructions", "Added to the system prompt of new runs.", true)}
        </fieldset>
        <fieldset>
          <legend>{values.coding ? "Lead model" : "Model"}</legend>
          {text("model", props.agent ? undefined : "Empty: the platform's default model.")}
          <Field name="thinking_level" label={LABELS.thinking_level!} error={errors.thinking_level} prefix={prefix}>
            {(a) => (
              <select {...a} value={values.thinking_level} onChange={(e) => set("thinking_level", (e.currentTarget as HTMLSelectElement).value)}>
                {THINKING_LEVELS.map((l) => (
                  <option key={l} value={l}>
                    {l}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {text("model_base_url", "Empty: the platform's provider.")}
          {text("model_api_key_secret", "An environment-style secret name, e.g. OPENAI_KEY.")}
        </fieldset>
        <fieldset>
          <legend>Run limits</legend>
          {number("max_steps")}
          {number("max_tool_calls")}
          {number("max_input_tokens")}
          {number("keep_tool_result_generations")}
          {number("max_workspace_mib")}
          {number("max_scripts")}
        </fieldset>
        <fieldset>
          <legend>Agent capabilities</legend>
          {FLAGS.map((f) => (
            <div key={f}>{flag(f)}</div>
          ))}
          {text("browser_language", "A language tag such as en-US.")}
          {props.agent && (
            <p class="hint" data-testid="box-change-hint">
              Saving a change to Browser, Coding or the browser language (while Browser is on) replaces an idle box: its home is saved, the box is destroyed,
              and the next run or view starts one with the new settings. A box in use is replaced at its next start.
            </p>
          )}
        </fieldset>
        {showHarness && (
          <TaskHarnessFields values={harness} coding={values.coding} errors={harnessErrors(errors, harness)} prefix={prefix} onChange={setHarnessField} />
        )}
      </div>
      <FormActions busy={busy} label={props.submitLabel}>
        {saved && (
          <span role="status" class="saved">
            Saved.
          </span>
        )}
      </FormActions>
    </form>
  );
}
