import type { Task } from "../lib/api";
import { checkRunKind, checkRunText, checksHeadline } from "../lib/task-checks";

/**
 * The checks of the task's branch head (ISSUE-33): a headline (waiting for them, passed,
 * failed) and each check run with its result, linking to its page on the forge. Nothing
 * before any check was read.
 */
export function TaskChecks(props: { task: Task }) {
  const { checks, awaiting_checks: awaiting } = props.task;
  const headline = checksHeadline(checks, awaiting);
  if (!headline) return null;
  return (
    <section class="card task-checks" aria-labelledby="task-checks" data-testid="task-checks" data-state={checks?.state ?? "pending"}>
      <h2 id="task-checks" class="task-checks-title">
        Checks
      </h2>
      <p class={awaiting ? "checks-awaiting" : "muted"} data-testid="checks-headline">
        {headline}
      </p>
      {checks && checks.runs.length > 0 && (
        <ul class="check-runs">
          {checks.runs.map((run) => (
            <li key={run.name}>
              <span class={`badge check-${checkRunKind(run)}`}>{checkRunText(run)}</span>{" "}
              {run.url ? (
                <a href={run.url} target="_blank" rel="noopener noreferrer">
                  {run.name}
                </a>
              ) : (
                run.name
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
