import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, type Schedule, unwrap } from "../lib/api";
import { type RoutineValues, routineBody, routineValues, type Trigger } from "../lib/routines";
import { useSubmit } from "../lib/use-submit";
import { Field, FormActions } from "./field";
import { Notice } from "./notice";

/** IANA zone names for the time zone field's suggestions (any name Temporal knows is accepted). */
const ZONES: string[] = (() => {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return [];
  }
})();

const CRON_FIELDS = ["description", "instruction", "cron"];
const WINDOW_FIELDS = ["description", "instruction", "wake_window", "wake_window.timezone", "wake_window.start", "wake_window.end", "wake_window.max_wakes"];

/**
 * Creates a routine of the agent, or edits one (UI-002): a one-line description, a
 * markdown instruction, and either a 5-field UTC cron or a random wake window. A 422
 * shows each message beside the field it names (`cron`, `wake_window.timezone`, …).
 */
export function RoutineForm(props: { agentId: string; schedule: Schedule | null; onSaved: (schedule: Schedule) => void; onClose: () => void }) {
  const [values, setValues] = useState<RoutineValues>(() => routineValues(props.schedule));
  const { errors, failure, setFailure, busy, run } = useSubmit();
  const form = useRef<HTMLFormElement>(null);
  const prefix = props.schedule ? `routine-${props.schedule.id}` : "routine-new";

  // In the same task as the form's first render: a deferred effect (useEffect runs after the
  // next frame) could take the focus while the operator, or a test, already types in
  // another field, and the text would land in the description.
  useLayoutEffect(() => {
    form.current?.querySelector<HTMLInputElement>("input[name=description]")?.focus();
  }, []);

  const set = (key: keyof RoutineValues, value: string) => setValues((v) => ({ ...v, [key]: value }));

  const submit = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      const body = routineBody(values, props.schedule);
      if (props.schedule && Object.keys(body).length === 0) {
        setFailure("Nothing changed.");
        return;
      }
      const saved = props.schedule
        ? await unwrap(api.PATCH("/api/schedules/{id}", { params: { path: { id: props.schedule.id } }, body }))
        : await unwrap(api.POST("/api/agents/{id}/schedules", { params: { path: { id: props.agentId } }, body }));
      props.onSaved(saved);
    });
  };

  const shown = values.trigger === "cron" ? CRON_FIELDS : WINDOW_FIELDS;
  const elsewhere = Object.entries(errors).filter(([field]) => !shown.includes(field));
  const input = (key: keyof RoutineValues, field: string, label: string, extra: Record<string, unknown> = {}, hint?: string) => (
    <Field name={field} label={label} error={errors[field]} prefix={prefix} {...(hint ? { hint } : {})}>
      {(a) => <input {...a} type="text" {...extra} value={values[key]} onInput={(e) => set(key, (e.currentTarget as HTMLInputElement).value)} />}
    </Field>
  );
  const choice = (trigger: Trigger, label: string) => (
    <label class="choice">
      <input type="radio" name={`${prefix}-trigger`} value={trigger} checked={values.trigger === trigger} onChange={() => set("trigger", trigger)} />
      {label}
    </label>
  );

  return (
    <form
      ref={form}
      class="routine-form"
      onSubmit={submit}
      noValidate
      onKeyDown={(e) => {
        if (e.key === "Escape") props.onClose();
      }}
    >
      {failure && <Notice kind={failure === "Nothing changed." ? "info" : "error"}>{failure}</Notice>}
      {elsewhere.length > 0 && <Notice kind="error">{elsewhere.map(([f, m]) => `${f || "body"}: ${m}`).join("; ")}</Notice>}
      <div class="form-grid">
        <fieldset>
          <legend>What</legend>
          {input("description", "description", "Description", {}, "One line, up to 200 characters; shown in this list.")}
          <Field
            name="instruction"
            label="Instruction"
            error={errors.instruction}
            prefix={prefix}
            hint="Markdown, up to 4000 characters: what the agent does when it wakes up."
          >
            {(a) => <textarea {...a} rows={6} value={values.instruction} onInput={(e) => set("instruction", (e.currentTarget as HTMLTextAreaElement).value)} />}
          </Field>
        </fieldset>
        <fieldset>
          <legend>When</legend>
          <div role="radiogroup" aria-label="Trigger" class="choices">
            {choice("cron", "Cron (UTC)")}
            {choice("window", "Random times in a daily window")}
          </div>
          {values.trigger === "cron" &&
            input(
              "cron",
              "cron",
              "Cron expression (UTC)",
              { class: "mono", spellcheck: false, autocomplete: "off" },
              "5 fields in UTC: minute hour day-of-month month day-of-week, e.g. 0 8 * * 1-5.",
            )}
          {values.trigger === "window" && (
            <div class={`window-fields${errors.wake_window ? " has-error" : ""}`} data-field="wake_window">
              {errors.wake_window && (
                <small class="field-error" role="alert">
                  {errors.wake_window}
                </small>
              )}
              {input(
                "timezone",
                "wake_window.timezone",
                "Time zone",
                { list: `${prefix}-zones`, autocomplete: "off", spellcheck: false },
                "An IANA name such as Europe/Berlin; daylight saving is followed.",
              )}
              <datalist id={`${prefix}-zones`}>
                {ZONES.map((z) => (
                  <option key={z} value={z} />
                ))}
              </datalist>
              <div class="field-row">
                {input("start", "wake_window.start", "Window start", { type: "time" })}
                {input("end", "wake_window.end", "Window end", { type: "time" })}
                {input("max_wakes", "wake_window.max_wakes", "Max wake-ups", { inputMode: "numeric" })}
              </div>
              <small class="hint">
                Every day, the agent wakes up at random times between start and end (an end before the start spans midnight), at most this many times, at least
                5 minutes apart.
              </small>
            </div>
          )}
        </fieldset>
      </div>
      <FormActions busy={busy} label={props.schedule ? "Save routine" : "Create routine"} onCancel={props.onClose} />
    </form>
  );
}
