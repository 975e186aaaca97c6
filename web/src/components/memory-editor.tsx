import { useState } from "preact/hooks";
import { ApiError, api, describe, unwrap } from "../lib/api";
import { when } from "../lib/format";
import { useLoad } from "../lib/use-load";
import { Field } from "./field";
import { Notice } from "./notice";

/**
 * The agent's Memory: the document its new runs open with (<memory>), which the agent
 * rewrites with memory_write. The operator reads and edits it here. `enabled` is the
 * agent's memory flag as the settings form last saved it, so switching Memory above
 * updates the lead at once.
 */
export function MemoryEditor(props: { agentId: string; enabled: boolean }) {
  const memory = useLoad(() => unwrap(api.GET("/api/agents/{id}/memory", { params: { path: { id: props.agentId } } })), [props.agentId]);
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);

  if (memory.error) return <Notice kind="error">Could not load the Memory: {memory.error}</Notice>;
  if (!memory.data) return <p aria-busy="true">Loading the Memory…</p>;
  const m = memory.data;
  const text = draft ?? m.content;

  const save = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setSaved(false);
    try {
      memory.setData(await unwrap(api.PUT("/api/agents/{id}/memory", { params: { path: { id: props.agentId } }, body: { content: text } })));
      setDraft(null);
      setSaved(true);
    } catch (e) {
      setError(e instanceof ApiError ? (e.fieldErrors().content ?? describe(e)) : describe(e));
    }
  };

  return (
    <section class="card" aria-labelledby="memory-heading">
      <h2 id="memory-heading">Memory</h2>
      <p class="lead" data-testid="memory-state">
        {props.enabled
          ? "New runs start with this document as their <memory>; the agent rewrites it with memory_write."
          : "Memory is off for this agent: turn it on above to offer memory_write and show this document to new runs."}
        {m.updated_at && <> Last written {when(m.updated_at)}.</>}
      </p>
      <form onSubmit={save}>
        <Field name="content" label="Memory document" error={error} prefix="memory">
          {(attrs) => <textarea {...attrs} rows={8} value={text} onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)} />}
        </Field>
        <button type="submit" disabled={draft === null}>
          Save Memory
        </button>
        {saved && <span role="status"> Saved.</span>}
      </form>
    </section>
  );
}
