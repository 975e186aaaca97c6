import { api, unwrap } from "../lib/api";
import { ConfirmDelete } from "./confirm";

/**
 * "Remove all scripts" (UI-025), on the Scripts and Settings pages: deletes every script of
 * the agent after a confirmation; each file leaves the agent's home with its tool (UI-026).
 */
export function RemoveAllScripts(props: { agentId: string; agentName: string; onRemoved: () => void }) {
  return (
    <ConfirmDelete
      what={`every script of ${props.agentName}`}
      label="Remove all scripts…"
      verb="Remove"
      onConfirm={async () => {
        await unwrap(api.DELETE("/api/agents/{id}/scripts", { params: { path: { id: props.agentId } } }));
        props.onRemoved();
      }}
    />
  );
}
