import { useEffect, useRef, useState } from "preact/hooks";
import { AgentHeader, useAgentPage } from "../components/agent-tabs";
import { Link } from "../components/link";
import { Notice } from "../components/notice";
import { RemoveAllScripts } from "../components/remove-all-scripts";
import { ScriptCard } from "../components/script-card";
import { ScriptForm } from "../components/script-form";
import { api, type Script, unwrap } from "../lib/api";
import { linkedScript, scriptAnchor } from "../lib/scripts";
import { useLoad } from "../lib/use-load";
import { useScriptsChanged } from "../lib/use-scripts-changed";

/**
 * The agent's Scripts (State › Scripts, UI-016..027): one card per script of the live
 * catalog, Add script (disabled at the cap), Remove all scripts. Hidden from the tabs while
 * scripting is off; its address then says so. `#script-<name>` opens at that card. The list
 * follows the guild's `agent.scripts.changed` events.
 */
export function ScriptsView(props: { id: string }) {
  const { agent, guild } = useAgentPage(props.id);
  const scripting = agent.data?.scripting;
  const list = useLoad(
    async () => (scripting ? (await unwrap(api.GET("/api/agents/{id}/scripts", { params: { path: { id: props.id } } }))).data : null),
    [props.id, scripting],
  );
  // A script the agent writes in a run, or anyone deletes, shows without a reload of the page.
  useScriptsChanged(scripting ? agent.data?.guild_id : undefined, props.id, () => void list.reload());
  const [adding, setAdding] = useState(false);
  const [targeted] = useState(() => linkedScript(location.hash));
  const addButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (targeted && list.data) document.getElementById(scriptAnchor(targeted))?.scrollIntoView({ block: "start" });
    // Only once the list has arrived, for a script named in the address.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [Boolean(list.data)]);

  if (agent.error) return <Notice kind="error">Could not load the agent: {agent.error}</Notice>;
  if (!agent.data) return <p aria-busy="true">Loading…</p>;
  const a = agent.data;

  if (!a.scripting) {
    return (
      <section>
        <AgentHeader agent={a} guild={guild.data} title={`Scripts of ${a.name}`} current="scripts" />
        <Notice kind="info" testId="no-scripting">
          This agent has no scripting. Turn on Scripting under Agent capabilities in <Link href={`/agents/${a.id}/settings`}>its settings</Link> to keep
          scripts.
        </Notice>
      </section>
    );
  }

  const scripts = list.data ?? [];
  const atCap = scripts.length >= a.max_scripts;
  const upsert = (next: Script) =>
    list.setData((rows) => {
      const others = (rows ?? []).filter((r) => r.name !== next.name);
      return [...others, next].sort((x, y) => x.name.localeCompare(y.name));
    });
  const remove = async (s: Script) => {
    await unwrap(api.DELETE("/api/agents/{id}/scripts/{name}", { params: { path: { id: a.id, name: s.name } } }));
    list.setData((rows) => (rows ?? []).filter((r) => r.name !== s.name));
    addButton.current?.focus();
  };

  return (
    <section>
      <AgentHeader agent={a} guild={guild.data} title={`Scripts of ${a.name}`} current="scripts" />
      <p class="lead">
        Python files the agent keeps and runs again in later runs. Each run works with the scripts as they were when it started; a change here reaches new runs,
        and a deleted script leaves the agent's home at once.
      </p>
      <div class="title-row">
        <h2 id="scripts">Scripts</h2>
        <span class="muted" id="script-count" data-testid="script-count">
          {list.data ? `${scripts.length} of ${a.max_scripts}` : ""}
        </span>
        <button type="button" class="link" onClick={() => void list.reload()}>
          Refresh
        </button>
        <span class="spacer" />
        {!adding && (
          <button
            ref={addButton}
            type="button"
            class="primary"
            disabled={!list.data || atCap}
            aria-describedby={atCap ? "script-cap" : undefined}
            onClick={() => setAdding(true)}
          >
            Add script
          </button>
        )}
        {scripts.length > 0 && <RemoveAllScripts agentId={a.id} agentName={a.name} onRemoved={() => list.setData([])} />}
      </div>
      {atCap && list.data && (
        <p class="muted" id="script-cap" data-testid="script-cap">
          The agent has as many scripts as its cap ({a.max_scripts}): raise Max scripts in <Link href={`/agents/${a.id}/settings`}>its settings</Link> or remove
          a script to add another.
        </p>
      )}
      {adding && (
        <section class="card" aria-labelledby="add-script">
          <h2 id="add-script">Add script</h2>
          <ScriptForm
            agentId={a.id}
            script={null}
            onSaved={(s) => {
              upsert(s);
              setAdding(false);
            }}
            onClose={() => setAdding(false)}
          />
        </section>
      )}
      {list.error && <Notice kind="error">Could not load the scripts: {list.error}</Notice>}
      {list.loading && !list.data && <p aria-busy="true">Loading…</p>}
      {list.data && scripts.length === 0 && <p>No script yet.</p>}
      {scripts.map((s) => (
        <ScriptCard key={s.name} agentId={a.id} script={s} targeted={targeted === s.name} onSaved={upsert} onDelete={() => remove(s)} />
      ))}
    </section>
  );
}
