import { AgentConnections } from "../components/agent-connections";
import { AgentForm } from "../components/agent-form";
import { AgentHeader, useAgentPage } from "../components/agent-tabs";
import { ConfirmDelete } from "../components/confirm";
import { Link } from "../components/link";
import { MemoryEditor } from "../components/memory-editor";
import { Notice } from "../components/notice";
import { RemoveAllScripts } from "../components/remove-all-scripts";
import { HomeSettings } from "../components/sandbox-home";
import { type Agent, api, unwrap } from "../lib/api";
import { navigate } from "../lib/router";
import { scriptsHref } from "../lib/scripts";
import { useLoad } from "../lib/use-load";

/** An agent's settings (a change reaches new runs only), and deleting the agent. */
export function AgentSettingsView(props: { id: string }) {
  const { agent, guild } = useAgentPage(props.id);

  if (agent.error) return <Notice kind="error">Could not load the agent: {agent.error}</Notice>;
  if (!agent.data) return <p aria-busy="true">Loading…</p>;
  const a = agent.data;

  return (
    <section>
      <AgentHeader agent={a} guild={guild.data} title={`Settings of ${a.name}`} current="settings" />
      <p class="lead">Runs keep the settings they started with; a change reaches new runs only.</p>
      <AgentForm
        key={a.id}
        agent={a}
        submitLabel="Save settings"
        onSubmit={async (body) => {
          agent.setData(await unwrap(api.PATCH("/api/agents/{id}", { params: { path: { id: a.id } }, body })));
        }}
      />
      <MemoryEditor agentId={a.id} enabled={a.memory} />
      <ScriptsSettings agent={a} />
      <AgentConnections agent={a} />
      <HomeSettings agentId={a.id} name={a.name} />
      <section class="card danger-zone" aria-labelledby="delete-agent">
        <h2 id="delete-agent">Delete this agent</h2>
        <p>Deletes the agent with all its runs and messages.</p>
        <ConfirmDelete
          what={`agent ${a.name}`}
          label="Delete agent…"
          onConfirm={async () => {
            await unwrap(api.DELETE("/api/agents/{id}", { params: { path: { id: a.id } } }));
            navigate(`/guilds/${a.guild_id}`);
          }}
        />
      </section>
    </section>
  );
}

/** The agent's scripts from its settings: how many it keeps, and Remove all scripts (UI-025), whether scripting is on or not. */
function ScriptsSettings(props: { agent: Agent }) {
  const { agent } = props;
  const list = useLoad(async () => (await unwrap(api.GET("/api/agents/{id}/scripts", { params: { path: { id: agent.id } } }))).data, [agent.id]);
  const count = list.data?.length;
  return (
    <section class="card" aria-labelledby="settings-scripts">
      <h2 id="settings-scripts">Scripts</h2>
      {list.error && <Notice kind="error">Could not load the scripts: {list.error}</Notice>}
      {count !== undefined && (
        <p data-testid="settings-script-count">
          {count === 1 ? "1 script" : `${count} scripts`} of at most {agent.max_scripts}
          {agent.scripting ? (
            <>
              {" "}
              · <Link href={scriptsHref(agent.id)}>open Scripts</Link>
            </>
          ) : (
            " · scripting is off, so runs offer no script tools"
          )}
        </p>
      )}
      {count !== undefined && count > 0 && <RemoveAllScripts agentId={agent.id} agentName={agent.name} onRemoved={() => list.setData([])} />}
    </section>
  );
}
