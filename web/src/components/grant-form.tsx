import { useState } from "preact/hooks";
import type { Agent, Guild, SecretGrantCreate } from "../lib/api";

/** Guilds and agents a secret or a connection can be granted to, by id, for naming grants. */
export interface GrantTargets {
  guilds: Guild[];
  agents: Agent[];
}

/** A grant's body (secrets and MCP connections take the same). */
export type GrantBody = SecretGrantCreate;

/**
 * "Grant to" a guild or an agent not granted yet, as secrets and MCP connections are granted.
 *
 * @example <GrantForm formId={`grant-${secret.id}`} grants={secret.grants} targets={targets} onGrant={grant} />
 */
export function GrantForm(props: {
  formId: string;
  grants: Array<{ guild_id: string | null; agent_id: string | null }>;
  targets: GrantTargets;
  onGrant: (body: GrantBody) => Promise<void>;
}) {
  const [choice, setChoice] = useState("");
  const granted = new Set(props.grants.map((g) => g.guild_id ?? g.agent_id));
  const submit = (event: Event) => {
    event.preventDefault();
    const [kind, id] = choice.split(":");
    if (!id) return;
    void props.onGrant(kind === "guild" ? { guild_id: id } : { agent_id: id }).then(() => setChoice(""));
  };
  return (
    <form class="inline-form" onSubmit={submit}>
      <label for={props.formId}>Grant to</label>
      <select id={props.formId} value={choice} onChange={(e) => setChoice((e.currentTarget as HTMLSelectElement).value)}>
        <option value="">Choose a guild or agent…</option>
        {props.targets.guilds
          .filter((g) => !granted.has(g.id))
          .map((g) => (
            <option key={g.id} value={`guild:${g.id}`}>
              Guild {g.name}
            </option>
          ))}
        {props.targets.agents
          .filter((a) => !granted.has(a.id))
          .map((a) => (
            <option key={a.id} value={`agent:${a.id}`}>
              Agent {a.name}
            </option>
          ))}
      </select>
      <button type="submit" disabled={!choice}>
        Grant
      </button>
    </form>
  );
}
