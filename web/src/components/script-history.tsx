import { api, unwrap } from "../lib/api";
import { when } from "../lib/format";
import { useLoad } from "../lib/use-load";
import { Notice } from "./notice";
import { ScriptAuthor } from "./script-author";

/** A script's changes, newest first (UI-022): each version with who wrote it, when, its description and source. */
export function ScriptHistory(props: { agentId: string; name: string; id: string }) {
  const history = useLoad(
    async () => (await unwrap(api.GET("/api/agents/{id}/scripts/{name}/history", { params: { path: { id: props.agentId, name: props.name } } }))).data,
    [props.agentId, props.name],
  );
  const versions = [...(history.data ?? [])].sort((a, b) => b.version - a.version);
  return (
    <section class="script-history" id={props.id} aria-label={`History of ${props.name}.py`}>
      <h4>History</h4>
      {history.error && <Notice kind="error">Could not load the history: {history.error}</Notice>}
      {history.loading && !history.data && <p aria-busy="true">Loading…</p>}
      <ol>
        {versions.map((v) => (
          <li key={v.version} data-version={v.version}>
            <span class="badge">v{v.version}</span> <ScriptAuthor author={v.author} /> · <time dateTime={v.created_at}>{when(v.created_at)}</time>
            <span class="muted"> · {v.description}</span>
            <details>
              <summary>Source of v{v.version}</summary>
              <pre class="script-version-source">{v.source}</pre>
            </details>
          </li>
        ))}
      </ol>
    </section>
  );
}
