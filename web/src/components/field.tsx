import type { ComponentChildren } from "preact";

interface FieldProps {
  /** API field name: the input's name and id, and the key of its 422 error. */
  name: string;
  label: string;
  error?: string | undefined;
  hint?: string;
  /** Keeps ids unique when two forms on a page have a field of the same name. */
  prefix?: string;
  children: (attrs: { id: string; name: string; "aria-invalid": boolean; "aria-describedby"?: string }) => ComponentChildren;
}

/**
 * A labelled control with its validation error beside it: the API's 422 names the
 * field, and the message appears under that control, linked by aria-describedby.
 */
export function Field({ name, label, error, hint, prefix = "field", children }: FieldProps) {
  const id = `${prefix}-${name}`;
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class={`field${error ? " has-error" : ""}`} data-field={name}>
      <label for={id}>{label}</label>
      {children({ id, name, "aria-invalid": Boolean(error), ...(described ? { "aria-describedby": described } : {}) })}
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-error`} class="field-error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}

/** A checkbox with its label after it; errors shown the same way. */
export function Toggle(props: {
  name: string;
  label: string;
  checked: boolean;
  onChange: (value: boolean) => void;
  error?: string | undefined;
  prefix?: string;
}) {
  const id = `${props.prefix ?? "field"}-${props.name}`;
  return (
    <div class={`field toggle${props.error ? " has-error" : ""}`} data-field={props.name}>
      <input
        type="checkbox"
        id={id}
        name={props.name}
        checked={props.checked}
        aria-invalid={Boolean(props.error)}
        aria-describedby={props.error ? `${id}-error` : undefined}
        onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>{props.label}</label>
      {props.error && (
        <small id={`${id}-error`} class="field-error" role="alert">
          {props.error}
        </small>
      )}
    </div>
  );
}

/**
 * A form's submit button (Saving… while busy) and, where the form is a panel, its Cancel.
 *
 * @example <FormActions busy={busy} label="Create routine" onCancel={close} />
 */
export function FormActions(props: { busy: boolean; label: string; onCancel?: () => void; children?: ComponentChildren }) {
  return (
    <div class="form-actions">
      <button type="submit" class="primary" disabled={props.busy}>
        {props.busy ? "Saving…" : props.label}
      </button>
      {props.onCancel && (
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      )}
      {props.children}
    </div>
  );
}
