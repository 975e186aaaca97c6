import { useState } from "preact/hooks";
import type { Script } from "../lib/api";
import { when } from "../lib/format";
import { parametersText, scriptAnchor } from "../lib/scripts";
import { ConfirmDelete } from "./confirm";
import { ScriptAuthor } from "./script-author";
import { ScriptForm } from "./script-form";
import { ScriptHistory } from "./script-history";
import { ScriptSource } from "./script-source";

const LANGUAGE_NAMES: Record<string, string> = { python: "Python" };

/**
 * One script (UI-017..022): its file name with version and author, the description, the
 * source (numbered and highlighted), and a footer naming the sandbox path and language.
 * Edit reopens it in the form; History and, for a script with parameters, Parameters open
 * on demand. `targeted` marks the card an address opened (a chat chip, UI-028).
 */
export function ScriptCard(props: { agentId: string; script: Script; targeted: boolean; onSaved: (script: Script) => void; onDelete: () => Promise<void> }) {
  const s = props.script;
  const [editing, setEditing] = useState(false);
  const [history, setHistory] = useState(false);
  const [parameters, setParameters] = useState(false);
  const anchor = scriptAnchor(s.name);
  return (
    <article id={anchor} class={`card script-card${props.targeted ? " targeted" : ""}`} data-script={s.name} aria-labelledby={`${anchor}-title`}>
      <header class="title-row">
        <h3 id={`${anchor}-title`}>
          <code>{s.name}.py</code>
        </h3>
        <span class="badge" data-testid="script-version">
          v{s.version}
        </span>
        <ScriptAuthor author={s.author} />
        <span class="muted">
          · <time dateTime={s.updated_at}>{when(s.updated_at)}</time>
        </span>
        <span class="spacer" />
        <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing} aria-label={`Edit ${s.name}.py`}>
          Edit
        </button>
        <button
          type="button"
          onClick={() => setHistory(!history)}
          aria-expanded={history}
          aria-controls={history ? `${anchor}-history` : undefined}
          aria-label={`History of ${s.name}.py`}
        >
          History
        </button>
        {s.parameters && (
          <button
            type="button"
            onClick={() => setParameters(!parameters)}
            aria-expanded={parameters}
            aria-controls={parameters ? `${anchor}-parameters` : undefined}
            aria-label={`Parameters of ${s.name}.py`}
          >
            Parameters
          </button>
        )}
        <ConfirmDelete what={`script ${s.name}.py`} onConfirm={props.onDelete} />
      </header>
      <p class="script-description">{s.description}</p>
      {s.parameters && (
        <p class="muted script-tool">
          Also a tool of its own on new runs: <code>{s.name}</code> with arguments.
        </p>
      )}
      {parameters && s.parameters && (
        <pre class="script-parameters" id={`${anchor}-parameters`} role="group" aria-label={`Parameters of ${s.name}`}>
          {parametersText(s.parameters)}
        </pre>
      )}
      {editing ? (
        <ScriptForm
          agentId={props.agentId}
          script={s}
          onSaved={(next) => {
            setEditing(false);
            props.onSaved(next);
          }}
          onClose={() => setEditing(false)}
        />
      ) : (
        <ScriptSource name={s.name} source={s.source} />
      )}
      {history && <ScriptHistory key={s.version} agentId={props.agentId} name={s.name} id={`${anchor}-history`} />}
      <footer class="script-footer" data-testid="script-footer">
        <code>{s.display_path}</code> · {LANGUAGE_NAMES[s.language] ?? s.language}
      </footer>
    </article>
  );
}
