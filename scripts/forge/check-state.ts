/**
 * The forge's check runs and check suites (GitHub's Checks API), per repository and commit.
 * Every run is the App's, in the one suite the App has per commit; a suite completes when
 * its last run does, with the worst conclusion of its runs. Runs still going when the forge
 * stopped read as cancelled on the next start: nothing finishes them any more.
 */

export interface CheckOutput {
  title: string | null;
  summary: string | null;
  text: string | null;
}

export interface CheckRun {
  id: number;
  full_name: string;
  name: string;
  head_sha: string;
  /** The branch whose push made it (GitHub's check_suite.head_branch). */
  head_branch: string | null;
  status: "queued" | "in_progress" | "completed";
  /** success, failure, timed_out, cancelled… once completed. */
  conclusion: string | null;
  started_at: string;
  completed_at: string | null;
  output: CheckOutput;
  suite_id: number;
}

export interface CheckSuite {
  id: number;
  full_name: string;
  head_sha: string;
  head_branch: string | null;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  created_at: string;
  updated_at: string;
}

export interface SavedChecks {
  runs: CheckRun[];
  suites: CheckSuite[];
  next_id: number;
}

/** Worst first: the suite's conclusion is the first of these any run has. */
const SEVERITY = ["action_required", "cancelled", "timed_out", "failure", "stale", "neutral", "skipped", "success"];

export class Checks {
  private readonly runs: CheckRun[] = [];
  private readonly suites: CheckSuite[] = [];
  private nextId = 1;

  /** A new run `in_progress` on the commit, in the commit's suite (made when it has none). */
  start(fields: { full_name: string; name: string; head_sha: string; head_branch: string | null }, now = new Date()): CheckRun {
    const at = stamp(now);
    let suite = this.suites.find((s) => s.full_name === fields.full_name && s.head_sha === fields.head_sha);
    if (!suite) {
      suite = {
        id: this.nextId++,
        full_name: fields.full_name,
        head_sha: fields.head_sha,
        head_branch: fields.head_branch,
        status: "queued",
        conclusion: null,
        created_at: at,
        updated_at: at,
      };
      this.suites.push(suite);
    }
    suite.status = "in_progress";
    suite.conclusion = null;
    suite.updated_at = at;
    const run: CheckRun = {
      ...fields,
      id: this.nextId++,
      status: "in_progress",
      conclusion: null,
      started_at: at,
      completed_at: null,
      output: { title: null, summary: null, text: null },
      suite_id: suite.id,
    };
    this.runs.push(run);
    return run;
  }

  /** Completes the run; returns its suite when that completed with it. */
  complete(run: CheckRun, conclusion: string, output: CheckOutput, now = new Date()): CheckSuite | undefined {
    run.status = "completed";
    run.conclusion = conclusion;
    run.completed_at = stamp(now);
    run.output = output;
    const suite = this.suite(run.suite_id);
    if (!suite) return undefined;
    const runs = this.runs.filter((r) => r.suite_id === suite.id);
    suite.updated_at = run.completed_at;
    if (runs.some((r) => r.status !== "completed")) return undefined;
    suite.status = "completed";
    suite.conclusion = SEVERITY.find((c) => runs.some((r) => r.conclusion === c)) ?? conclusion;
    return suite;
  }

  run(fullName: string, id: number): CheckRun | undefined {
    return this.runs.find((r) => r.full_name === fullName && r.id === id);
  }

  suite(id: number): CheckSuite | undefined {
    return this.suites.find((s) => s.id === id);
  }

  /** The repository's runs, newest first; of one commit when `sha` is given. */
  runsOf(fullName: string, sha?: string): CheckRun[] {
    return this.runs.filter((r) => r.full_name === fullName && (sha === undefined || r.head_sha === sha)).reverse();
  }

  suitesOf(fullName: string, sha: string): CheckSuite[] {
    return this.suites.filter((s) => s.full_name === fullName && s.head_sha === sha);
  }

  toJSON(): SavedChecks {
    return { runs: this.runs, suites: this.suites, next_id: this.nextId };
  }

  static fromJSON(saved: SavedChecks | undefined): Checks {
    const checks = new Checks();
    if (!saved) return checks;
    checks.runs.push(...saved.runs);
    checks.suites.push(...saved.suites);
    checks.nextId = saved.next_id;
    for (const run of checks.runs.filter((r) => r.status !== "completed")) {
      checks.complete(run, "cancelled", { title: "cancelled", summary: "The forge stopped while this ran.", text: null });
    }
    return checks;
  }
}

/** GitHub's timestamps: ISO-8601 to the second. */
const stamp = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, "Z");
