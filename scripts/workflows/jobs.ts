/**
 * The jobs of a GitHub Actions workflow as data a local dry run can carry out: each job's
 * steps (`uses:` or `run:`) and the environment each step sees (workflow, job and step `env:`),
 * with every `${{ … }}` expression replaced from a given context. Pure: no process, no files.
 */
import { parse } from "yaml";

export interface WorkflowStep {
  name: string;
  uses?: string;
  with?: Record<string, string>;
  run?: string;
  env: Record<string, string>;
}

export interface WorkflowJob {
  id: string;
  /** The job's `if:` as written, for the record (the dry run picks its jobs by name). */
  condition?: string;
  steps: WorkflowStep[];
}

/** Values for `${{ a.b.c }}` by their dotted path, e.g. `{ "secrets.DATABASE_URL": "postgres://…" }`. */
export type ExpressionContext = Record<string, string>;

/** Thrown for an expression the context has no value for: a dry run must not guess. */
export class UnknownExpression extends Error {}

/**
 * Replaces each `${{ path }}` in `text` by the context's value for `path`.
 *
 * @example substitute("ref ${{ github.sha }}", { "github.sha": "abc" }) // "ref abc"
 */
export function substitute(text: string, context: ExpressionContext): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, path: string) => {
    const value = context[path];
    if (value === undefined) throw new UnknownExpression(`no value for \${{ ${path} }}`);
    return value;
  });
}

/**
 * The jobs of a workflow, matrix-free: `matrix.*` comes from the context like any other value.
 *
 * @example
 *   const [test] = workflowJobs(readFileSync(".github/workflows/ci.yml", "utf8"), { "matrix.shard": "1", … });
 *   test.steps.at(-1)?.run // "bash .ci/run"
 */
export function workflowJobs(text: string, context: ExpressionContext): WorkflowJob[] {
  const workflow = parse(text) as { env?: Record<string, unknown>; jobs?: Record<string, RawJob> };
  const workflowEnv = environment(workflow.env, context);
  return Object.entries(workflow.jobs ?? {}).map(([id, job]) => {
    const jobEnv = { ...workflowEnv, ...environment(job.env, context) };
    return {
      id,
      ...(typeof job.if === "string" ? { condition: job.if.trim() } : {}),
      steps: (job.steps ?? []).map((step, index) => ({
        name: step.name ?? step.uses ?? firstLine(step.run) ?? `step ${index + 1}`,
        ...(step.uses ? { uses: step.uses } : {}),
        ...(step.with ? { with: environment(step.with, context) } : {}),
        ...(step.run !== undefined ? { run: substitute(step.run, context) } : {}),
        env: { ...jobEnv, ...environment(step.env, context) },
      })),
    };
  });
}

interface RawJob {
  if?: unknown;
  env?: Record<string, unknown>;
  steps?: { name?: string; uses?: string; with?: Record<string, unknown>; run?: string; env?: Record<string, unknown> }[];
}

function environment(values: Record<string, unknown> | undefined, context: ExpressionContext): Record<string, string> {
  return Object.fromEntries(Object.entries(values ?? {}).map(([key, value]) => [key, substitute(String(value), context)]));
}

function firstLine(text: string | undefined): string | undefined {
  return text?.trim().split("\n")[0];
}

/** The action a `uses:` names, without its pinned commit: `actions/checkout@3d3c…` → `actions/checkout`. */
export function actionName(uses: string): string {
  return uses.split("@")[0] as string;
}
