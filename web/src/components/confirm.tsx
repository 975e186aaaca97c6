import { useState } from "preact/hooks";
import { describe } from "../lib/api";

/**
 * A delete button that asks first, in the page (no browser dialog): "Delete…" opens
 * "Delete <what>? [Delete] [Cancel]" (another verb, such as Revoke, reads the same); the
 * confirming button takes focus. A refusal
 * (409 while the agent generates, say) is shown beside it.
 */
export function ConfirmDelete(props: { what: string; onConfirm: () => Promise<void> | void; label?: string; verb?: string }) {
  const verb = props.verb ?? "Delete";
  return (
    <ConfirmAction
      label={props.label ?? "Delete…"}
      question={`${verb} ${props.what}? This cannot be undone.`}
      confirm={verb}
      groupLabel={`Confirm ${gerund(verb)} ${props.what}`}
      onConfirm={props.onConfirm}
    />
  );
}

/**
 * Any action that asks first, as ConfirmDelete does: `label` opens "<question> [confirm]
 * [dismiss]", the confirming button takes focus, and a refusal is shown beside the button
 * as "<confirm> failed: <why>".
 *
 * @example <ConfirmAction label="Mark done…" question="Mark WEB-1 done?" confirm="Mark done" dismiss="Back" groupLabel="Confirm marking WEB-1 done" onConfirm={done} />
 */
export function ConfirmAction(props: {
  label: string;
  question: string;
  confirm: string;
  dismiss?: string;
  groupLabel: string;
  onConfirm: () => Promise<void> | void;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!asking) {
    return (
      <span class="confirm">
        <button
          type="button"
          class="danger-outline"
          onClick={() => {
            setAsking(true);
            setError(null);
          }}
        >
          {props.label}
        </button>
        {error && (
          <span class="field-error" role="alert">
            {error}
          </span>
        )}
      </span>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={props.groupLabel}>
      <span>{props.question}</span>
      <button
        type="button"
        class="danger"
        disabled={busy}
        ref={(el) => {
          if (el && !busy) el.focus();
        }}
        onClick={async () => {
          setBusy(true);
          try {
            await props.onConfirm();
          } catch (e) {
            setError(`${props.confirm} failed: ${describe(e)}`);
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {props.confirm}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        {props.dismiss ?? "Cancel"}
      </button>
    </span>
  );
}

/**
 * The verb's -ing form for the confirmation's label.
 *
 * @example gerund("Delete") // "deleting"; gerund("Reset") // "resetting"; gerund("Disconnect") // "disconnecting"
 */
export function gerund(verb: string): string {
  const word = verb.toLowerCase();
  if (/[^e]e$/.test(word)) return `${word.slice(0, -1)}ing`;
  // A short word ending consonant, vowel, t (reset, submit) doubles its t.
  if (/^[a-z]{0,4}[^aeiou][aeiou]t$/.test(word)) return `${word}ting`;
  return `${word}ing`;
}
