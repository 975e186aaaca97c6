import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Script, unwrap } from "../lib/api";
import { parametersText, parseParameters } from "../lib/scripts";
import { useSubmit } from "../lib/use-submit";
import { Field, FormActions } from "./field";
import { Notice } from "./notice";

/**
 * Add script, or Edit one (UI-022, UI-023): Name, Description, Source and Parameters. Saving
 * a name that exists replaces it (a new version), so an edit keeps its name. Parameters that
 * are not a JSON object are named beside the field before anything is sent; the API's 422
 * puts its messages on the fields it names, and the cap's refusal shows above the form.
 */
export function ScriptForm(props: { agentId: string; script: Script | null; onSaved: (script: Script) => void; onClose: () => void }) {
  const editing = props.script;
  const [name, setName] = useState(editing?.name ?? "");
  const [description, setDescription] = useState(editing?.description ?? "");
  const [source, setSource] = useState(editing?.source ?? "");
  const [parameters, setParameters] = useState(parametersText(editing?.parameters));
  const [parseError, setParseError] = useState<string | null>(null);
  const { errors, failure, busy, run } = useSubmit();
  const prefix = editing ? `script-edit-${editing.name}` : "script-new";
  // A new script starts at its name; an edit keeps the focus on the button that opened it.
  const nameInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!editing) nameInput.current?.focus();
  }, []);

  const submit = (event: Event) => {
    event.preventDefault();
    const parsed = parseParameters(parameters);
    setParseError(parsed.ok ? null : parsed.message);
    if (!parsed.ok) return;
    void run(async () => {
      const body = { name: name.trim(), description, source, parameters: parsed.value };
      props.onSaved(await unwrap(api.POST("/api/agents/{id}/scripts", { params: { path: { id: props.agentId } }, body })));
    });
  };

  const shown = new Set(["name", "description", "source", "parameters"]);
  const elsewhere = Object.entries(errors).filter(([field]) => !shown.has(field));
  const input = (set: (value: string) => void) => (e: Event) => set((e.currentTarget as HTMLInputElement | HTMLTextAreaElement).value);

  return (
    <form class="script-form" onSubmit={submit} noValidate aria-label={editing ? `Edit ${editing.name}.py` : "Add script"}>
      {failure && <Notice kind="error">{failure}</Notice>}
      {elsewhere.length > 0 && <Notice kind="error">{elsewhere.map(([f, m]) => `${f || "body"}: ${m}`).join("; ")}</Notice>}
      <Field
        name="name"
        label="Name"
        error={errors.name}
        prefix={prefix}
        hint={
          editing ? "Saving replaces this script with a new version." : "Lowercase letters, digits, _ and -, starting with a letter; the file is <name>.py."
        }
      >
        {(a) => (
          <input
            {...a}
            type="text"
            class="mono"
            value={name}
            readOnly={Boolean(editing)}
            autoComplete="off"
            spellcheck={false}
            onInput={input(setName)}
            ref={nameInput}
          />
        )}
      </Field>
      <Field
        name="description"
        label="Description"
        error={errors.description}
        prefix={prefix}
        hint="Why the script exists: the agent reads it in script_list. At most 400 characters."
      >
        {(a) => <textarea {...a} rows={2} value={description} onInput={input(setDescription)} />}
      </Field>
      <Field name="source" label="Source" error={errors.source} prefix={prefix} hint="Python 3. Arguments arrive as a JSON object on standard input.">
        {(a) => <textarea {...a} class="mono" rows={12} spellcheck={false} value={source} onInput={input(setSource)} />}
      </Field>
      <Field
        name="parameters"
        label="Parameters"
        error={parseError ?? errors.parameters}
        prefix={prefix}
        hint='Optional: a JSON Schema of type object, e.g. {"type": "object", "properties": {"city": {"type": "string"}}}. With parameters the script is also a tool the agent calls with arguments.'
      >
        {(a) => (
          <textarea
            {...a}
            class="mono"
            rows={5}
            spellcheck={false}
            value={parameters}
            onInput={(e) => {
              setParameters((e.currentTarget as HTMLTextAreaElement).value);
              setParseError(null);
            }}
          />
        )}
      </Field>
      <FormActions busy={busy} label={editing ? "Save script" : "Create script"} onCancel={props.onClose} />
    </form>
  );
}
