import { useState } from "preact/hooks";
import { type Agent, api, type Repository, type Task, unwrap } from "../lib/api";
import { budgetInput } from "../lib/task-budget";
import { useSubmit } from "../lib/use-submit";
import { Field, FormActions, Toggle } from "./field";
import { Link } from "./link";
import { Notice } from "./notice";

const textOf = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement).value;

/**
 * Files a task (POST /api/guilds/:id/tasks): a title, what to do, one of the guild's coding
 * agents and one of its repositories, and the branch to start from, which follows the
 * chosen repository's default branch until the user types another, and how many attempts run
 * side by side (best of N). The API's 422 names
 * the fields; each message shows beside its field.
 */
export function TaskForm(props: { guildId: string; agents: Agent[]; repositories: Repository[]; onFiled: (task: Task) => void; onCancel: () => void }) {
  const coding = props.agents.filter((a) => a.coding);
  const [title, setTitle] = useState("");
  const [description, setDescription] = useState("");
  const [agentId, setAgentId] = useState(coding.length === 1 ? coding[0]!.id : "");
  const [repositoryId, setRepositoryId] = useState(props.repositories.length === 1 ? props.repositories[0]!.id : "");
  // null: the chosen repository's default branch.
  const [branch, setBranch] = useState<string | null>(null);
  const [forcePush, setForcePush] = useState(false);
  const [budget, setBudget] = useState("");
  const [budgetError, setBudgetError] = useState<string | null>(null);
  // Best of N: 1..4 attempts side by side (kept as typed, so the API's 422 names a bad one).
  const [attempts, setAttempts] = useState("1");
  const { errors, failure, busy, run } = useSubmit();
  const repository = props.repositories.find((r) => r.id === repositoryId);
  const baseBranch = branch ?? repository?.default_branch ?? "";

  const submit = (event: Event) => {
    event.preventDefault();
    const maxCost = budgetInput(budget);
    setBudgetError(maxCost.ok ? null : maxCost.message);
    if (!maxCost.ok) return;
    return run(async () => {
      const body = {
        title: title.trim(),
        description,
        agent_id: agentId,
        repository_id: repositoryId,
        ...(baseBranch.trim() ? { base_branch: baseBranch.trim() } : {}),
        allow_force_push: forcePush,
        ...(maxCost.value !== null ? { max_cost_usd: maxCost.value } : {}),
        ...(attempts.trim() !== "1" ? { attempts: Number(attempts) } : {}),
      };
      props.onFiled(await unwrap(api.POST("/api/guilds/{id}/tasks", { params: { path: { id: props.guildId } }, body })));
    });
  };

  return (
    <form class="card task-form" onSubmit={submit} noValidate aria-labelledby="new-task">
      <h2 id="new-task">New task</h2>
      {coding.length === 0 && (
        <Notice kind="warning">
          No agent of this guild can code yet: turn on Coding in an agent's settings (<Link href={`/guilds/${props.guildId}`}>Agents &amp; settings</Link>).
        </Notice>
      )}
      {props.repositories.length === 0 && (
        <Notice kind="warning">
          This guild has no repository yet: <Link href={`/guilds/${props.guildId}/repositories`}>add one</Link> for its tasks.
        </Notice>
      )}
      {failure && <Notice kind="error">{failure}</Notice>}
      <Field name="title" label="Title" error={errors.title} prefix="task-new">
        {(a) => <input {...a} type="text" autocomplete="off" value={title} onInput={(e) => setTitle(textOf(e))} />}
      </Field>
      <Field
        name="description"
        label="Description"
        error={errors.description}
        hint="What the agent should do, and how you will judge it done."
        prefix="task-new"
      >
        {(a) => <textarea {...a} rows={5} value={description} onInput={(e) => setDescription(textOf(e))} />}
      </Field>
      <div class="form-grid">
        <Field name="agent_id" label="Agent" error={errors.agent_id} hint="The guild's coding agents." prefix="task-new">
          {(a) => (
            <select {...a} value={agentId} onChange={(e) => setAgentId(textOf(e))}>
              <option value="">Choose an agent</option>
              {coding.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field name="repository_id" label="Repository" error={errors.repository_id} prefix="task-new">
          {(a) => (
            <select {...a} value={repositoryId} onChange={(e) => setRepositoryId(textOf(e))}>
              <option value="">Choose a repository</option>
              {props.repositories.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.full_name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Field
        name="base_branch"
        label="Base branch"
        error={errors.base_branch}
        hint="The task's branch starts here, and its pull request goes into it; the repository's default branch unless you name another."
        prefix="task-new"
      >
        {(a) => <input {...a} type="text" autocomplete="off" class="mono" value={baseBranch} onInput={(e) => setBranch(textOf(e))} />}
      </Field>
      <Toggle
        name="allow_force_push"
        label="Allow force pushes to the task's branch"
        checked={forcePush}
        onChange={setForcePush}
        error={errors.allow_force_push}
        prefix="task-new"
      />
      <Field
        name="max_cost_usd"
        label="Budget (USD)"
        error={budgetError ?? errors.max_cost_usd}
        hint="What all the task's runs may spend on model calls; reaching it pauses the task with its work pushed. Empty for no budget."
        prefix="task-new"
      >
        {(a) => (
          <input {...a} type="text" inputMode="decimal" autocomplete="off" value={budget} onInput={(e) => setBudget(textOf(e))} placeholder="no budget" />
        )}
      </Field>
      <Field
        name="attempts"
        label="Attempts"
        error={errors.attempts}
        hint="1 to 4. With 2 or more, that many attempts run side by side, each on its own branch; the pull request comes from the one whose checks pass with the smallest diff."
        prefix="task-new"
      >
        {(a) => <input {...a} type="number" min={1} max={4} step={1} value={attempts} onInput={(e) => setAttempts(textOf(e))} />}
      </Field>
      <FormActions busy={busy} label="File task" onCancel={props.onCancel} />
    </form>
  );
}
