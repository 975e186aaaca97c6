import { useEffect, useState } from "preact/hooks";
import { api, type Task, unwrap } from "../lib/api";
import { budgetInput, spendText } from "../lib/task-budget";
import { useSubmit } from "../lib/use-submit";
import { Field } from "./field";
import { Notice } from "./notice";

/**
 * The task's spend and budget (issue 33): "Spent $x of $y budget", the budget field that
 * saves it (PATCH /api/tasks/:id; empty removes it), and, when the budget stopped the task,
 * a line that says so beside the field that raises it. The answer is the task as it now is
 * (queued again when the raise left room), which `onTask` shows at once.
 */
export function TaskBudget(props: { task: Task; stopped: boolean; onTask: (task: Task) => void }) {
  const { task } = props;
  const [text, setText] = useState(task.max_cost_usd === null ? "" : String(task.max_cost_usd));
  const form = useSubmit();
  const [local, setLocal] = useState<string | null>(null);
  // A budget set elsewhere (another tab, the API) shows here once the task is read again.
  useEffect(() => setText(task.max_cost_usd === null ? "" : String(task.max_cost_usd)), [task.max_cost_usd]);

  const save = (event: Event) => {
    event.preventDefault();
    const input = budgetInput(text);
    setLocal(input.ok ? null : input.message);
    if (!input.ok) return;
    void form.run(async () => {
      props.onTask(await unwrap(api.PATCH("/api/tasks/{id}", { params: { path: { id: task.id } }, body: { max_cost_usd: input.value } })));
    });
  };

  return (
    <section class="card task-budget" aria-labelledby="task-budget">
      <h2 id="task-budget" class="sr-only">
        Budget
      </h2>
      <p data-testid="task-spend">{spendText(task)}</p>
      {props.stopped && (
        <Notice kind="warning" testId="task-budget-stopped">
          The task stopped at its budget: its work is pushed. Raise the budget to go on where it stopped.
        </Notice>
      )}
      <form class="inline-form" onSubmit={save} noValidate aria-label={`Budget of ${task.key}`}>
        <Field
          name="max_cost_usd"
          label="Budget (USD)"
          hint="What all the task's runs may spend; empty for no budget."
          error={local ?? form.errors.max_cost_usd}
          prefix="task-budget"
        >
          {(attrs) => (
            <input
              {...attrs}
              type="text"
              inputMode="decimal"
              value={text}
              onInput={(e) => setText((e.target as HTMLInputElement).value)}
              placeholder="no budget"
            />
          )}
        </Field>
        <button type="submit" disabled={form.busy}>
          {props.stopped ? "Raise budget" : "Save budget"}
        </button>
      </form>
      {form.failure && <Notice kind="error">{form.failure}</Notice>}
    </section>
  );
}
