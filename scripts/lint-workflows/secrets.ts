import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";

/** A secret set where more than the steps that use it can read it. */
export interface MisplacedSecret {
  line: number;
  /** The job, unless the secret is set for the whole workflow. */
  job?: string;
  /** The `env:` variable holding it; absent for a `run:` script. */
  variable?: string;
  message: string;
}

/** `${{ … }}` reading the secrets context: `secrets.X`, `secrets['X']`, `toJSON(secrets)`. */
const SECRET_EXPRESSION = /\$\{\{(?:(?!\}\})[\s\S])*?\bsecrets\b(?:(?!\}\})[\s\S])*?\}\}/;

/**
 * Secrets (`${{ secrets.* }}`) in the `env:` of the workflow, of a job or of a job's container,
 * where every step (and every install script or build those steps run) reads them, and in a
 * `run:` script, where the value is pasted into the script text: it lands in the script file
 * and the log's echo of it (masking misses a changed form of it) and is parsed by the shell.
 * A secret belongs in the `env:` (or `with:`) of the steps that use it.
 *
 * @example misplacedSecrets("jobs:\n  deploy:\n    env:\n      TOKEN: ${{ secrets.TOKEN }}\n")
 * // [{ line: 4, job: "deploy", variable: "TOKEN", message: "job deploy sets TOKEN from a secret in its env:, …" }]
 */
export function misplacedSecrets(workflow: string): MisplacedSecret[] {
  const lines = new LineCounter();
  const doc = parseDocument(workflow, { lineCounter: lines });
  const resolve = (node: unknown): unknown => (isAlias(node) ? node.resolve(doc) : node);
  const lineOf = (offset: number) => lines.linePos(offset).line;
  const found: MisplacedSecret[] = [];

  const inEnv = (env: unknown, where: string, job?: string) => {
    const node = resolve(env);
    if (isScalar(node) && typeof node.value === "string" && SECRET_EXPRESSION.test(node.value)) {
      found.push({
        line: lineOf(node.range?.[0] ?? 0),
        ...(job ? { job } : {}),
        message: `${where} takes its whole env: from a secret; set it in env: of the steps that use it`,
      });
    }
    if (!isMap(node)) return;
    for (const pair of node.items) {
      const value = resolve(pair.value);
      if (!isScalar(value) || typeof value.value !== "string" || !SECRET_EXPRESSION.test(value.value)) continue;
      const variable = String(isScalar(pair.key) ? pair.key.value : pair.key);
      found.push({
        line: lineOf(value.range?.[0] ?? 0),
        ...(job ? { job } : {}),
        variable,
        message: `${where} sets ${variable} from a secret in its env:, where every step reads it; set it in env: of the steps that use it`,
      });
    }
  };

  inEnv(doc.get("env", true), "the workflow");
  const jobs = resolve(doc.get("jobs", true));
  if (!isMap(jobs)) return found;
  for (const { key, value } of jobs.items) {
    const job = String(isScalar(key) ? key.value : key);
    const body = resolve(value);
    if (!isMap(body)) continue;
    inEnv(body.get("env", true), `job ${job}`, job);
    const container = resolve(body.get("container", true));
    if (isMap(container)) inEnv(container.get("env", true), `the container of job ${job}`, job);
    const steps = resolve(body.get("steps", true));
    for (const step of isSeq(steps) ? steps.items : []) {
      const stepMap = resolve(step);
      if (!isMap(stepMap)) continue;
      const run = resolve(stepMap.get("run", true));
      if (!isScalar(run) || typeof run.value !== "string" || !run.range) continue;
      // Where in the source the expression is, for its own line inside a block script.
      const match = SECRET_EXPRESSION.exec(workflow.slice(run.range[0], run.range[1]));
      if (!match) continue;
      const name = stepMap.get("name");
      found.push({
        line: lineOf(run.range[0] + match.index),
        job,
        message: `${typeof name === "string" ? `step "${name}"` : "a run: step"} of job ${job} writes ${match[0]} into its script; pass it through the step's env: and read "$NAME"`,
      });
    }
  }
  return found;
}
