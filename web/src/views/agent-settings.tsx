import { AgentForm } from "../components/agent-form";
import { AgentHeader, useAgentPage } from "../components/agent-tabs";
import { ConfirmDelete } from "../components/confirm";
import { MemoryEditor } from "../components/memory-editor";
import { Notice } from "../components/notice";
import { api, unwrap } from "../lib/api";
import { navigate } from "../lib/router";

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
      <MemoryEditor agentId={a.id} />
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
