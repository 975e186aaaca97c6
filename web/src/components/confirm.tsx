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
          {props.label ?? "Delete…"}
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
    <span class="confirm" role="group" aria-label={`Confirm ${gerund(verb)} ${props.what}`}>
      <span>
        {verb} {props.what}? This cannot be undone.
      </span>
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
            setError(`${verb} failed: ${describe(e)}`);
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {verb}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
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
