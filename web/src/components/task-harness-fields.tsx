import type { TaskHarness } from "../lib/api";
import { HARNESS_KIND_LABELS, HARNESS_LABELS, type HarnessField, type HarnessValues, MODEL_API_LABELS, PERMISSION_MODE_LABELS } from "../lib/task-harness";
import { Field } from "./field";

/**
 * The Task harness section of the agent settings: the kind, and for Claude Code its model,
 * turns, permissions, tool rules, extra flags and how the provider is spoken to. Each API
 * message shows at its field (`task_harness.<field>` on the wire).
 */
export function TaskHarnessFields(props: {
  values: HarnessValues;
  coding: boolean;
  errors: Partial<Record<HarnessField, string>>;
  prefix: string;
  onChange: (field: HarnessField, value: string) => void;
}) {
  const { values, errors, prefix } = props;
  const name = (field: HarnessField) => `task_harness.${field}`;
  const select = (field: HarnessField, options: Record<string, string>, hint?: string) => (
    <Field name={name(field)} label={HARNESS_LABELS[field]} error={errors[field]} prefix={prefix} {...(hint ? { hint } : {})}>
      {(a) => (
        <select {...a} value={values[field]} onChange={(e) => props.onChange(field, (e.currentTarget as HTMLSelectElement).value)}>
          {Object.entries(options).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
  const text = (field: HarnessField, hint: string, lines = 0) => (
    <Field name={name(field)} label={HARNESS_LABELS[field]} error={errors[field]} prefix={prefix} hint={hint}>
      {(a) =>
        lines ? (
          <textarea
            {...a}
            rows={lines}
            spellcheck={false}
            value={values[field]}
            onInput={(e) => props.onChange(field, (e.currentTarget as HTMLTextAreaElement).value)}
          />
        ) : (
          <input {...a} type="text" value={values[field]} onInput={(e) => props.onChange(field, (e.currentTarget as HTMLInputElement).value)} />
        )
      }
    </Field>
  );
  const kindHint =
    !props.coding && values.kind !== "platform"
      ? "Claude Code works for coding agents only: turn Coding on, or choose Platform."
      : "What generates the agent's task turns: the platform's own loop, or Claude Code in the task's box through the model gateway.";

  return (
    <fieldset class="task-harness" data-testid="task-harness">
      <legend>Task harness</legend>
      {select("kind", HARNESS_KIND_LABELS as Record<TaskHarness["kind"], string>, kindHint)}
      {values.kind === "claude-code" && (
        <>
          {text("model", "Empty: the agent's model. The gateway forwards with this name.")}
          {text("max_turns", "Claude Code's turns per prompt, 1 to 1000.")}
          {select("permission_mode", PERMISSION_MODE_LABELS)}
          {text("allowed_tools", "One rule per line, e.g. Edit or Bash(git:*).", 3)}
          {text("disallowed_tools", "One rule per line, e.g. WebFetch.", 2)}
          {text(
            "extra_flags",
            "One flag per line, its value after a space: --add-dir /data/workspace/…, --fallback-model, --betas, --effort, --strict-mcp-config, --disable-slash-commands, --exclude-dynamic-system-prompt-sections.",
            3,
          )}
          {select("model_api", MODEL_API_LABELS, "How the gateway speaks to the agent's provider.")}
        </>
      )}
    </fieldset>
  );
}
