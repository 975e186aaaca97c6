import { useState } from "preact/hooks";
import { type Agent, api, type Repository, unwrap } from "../lib/api";
import { useSubmit } from "../lib/use-submit";
import { Field } from "./field";
import { Notice } from "./notice";

const textOf = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;

/**
 * What issues of a repository do: the coding agent an issue labelled with the trigger label
 * (or a comment mentioning the agent) files a task for, and that label. Saved with
 * `PATCH /api/repositories/:id`; a 422 shows under the field it names.
 */
export function RepositoryIssues(props: { repository: Repository; agents: Agent[]; onSaved: (repository: Repository) => void }) {
  const { repository } = props;
  const [agentId, setAgentId] = useState(repository.task_agent_id ?? "");
  const [label, setLabel] = useState(repository.trigger_label);
  const { errors, failure, busy, run } = useSubmit();
  // The guild's coding agents; one chosen before it was archived or lost coding stays listed, marked.
  const choices = props.agents.filter((a) => (a.coding && !a.archived_at) || a.id === repository.task_agent_id);
  const unchanged = agentId === (repository.task_agent_id ?? "") && label === repository.trigger_label;
  const prefix = `repository-${repository.id}`;

  const submit = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      const body = { task_agent_id: agentId || null, trigger_label: label };
      const saved = await unwrap(api.PATCH("/api/repositories/{id}", { params: { path: { id: repository.id } }, body }));
      props.onSaved(saved);
    });
  };

  return (
    <form class="inline-form repository-issues" onSubmit={submit} noValidate aria-label={`Issues of ${repository.full_name}`}>
      <Field name="task_agent_id" label="Task agent" error={errors.task_agent_id} prefix={prefix}>
        {(a) => (
          <select {...a} value={agentId} onChange={(e) => setAgentId(textOf(e))}>
            <option value="">None: issues start no task</option>
            {choices.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
                {agent.archived_at ? " (archived)" : agent.coding ? "" : " (not a coding agent)"}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field name="trigger_label" label="Trigger label" error={errors.trigger_label} prefix={prefix}>
        {(a) => <input {...a} type="text" autocomplete="off" maxLength={50} value={label} onInput={(e) => setLabel(textOf(e))} />}
      </Field>
      <button type="submit" disabled={busy || unchanged}>
        {busy ? "Saving…" : "Save"}
      </button>
      {failure && <Notice kind="error">{failure}</Notice>}
    </form>
  );
}
