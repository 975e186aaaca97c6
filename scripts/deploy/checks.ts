/**
 * The checks between rollout steps, over HTTP: /api/health and a smoke run against one version.
 * A version is reached through Cloudflare's version override header, so a check at 10% talks
 * to the new version and never to the previous one.
 */
import { type HealthReport, schemaProblem } from "./schema-check";

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export interface CheckTiming {
  /** How long a check keeps trying before it reports its last problem. */
  waitMs: number;
  /** Pause between tries. */
  pollMs: number;
}

/**
 * The header that sends a request to one version of a Worker during a gradual deployment.
 *
 * @example versionOverride("guilds-platform-production", "0f1e") // { "Cloudflare-Workers-Version-Overrides": 'guilds-platform-production="0f1e"' }
 */
export function versionOverride(workerName: string, versionId: string): Record<string, string> {
  return { "Cloudflare-Workers-Version-Overrides": `${workerName}="${versionId}"` };
}

/** Polls /api/health until it reports ok at the newest migration; the last problem when it never does. */
export async function healthProblem(
  origin: string,
  tag: string,
  headers: Record<string, string>,
  timing: CheckTiming,
  fetchFn: Fetch = fetch,
): Promise<string | null> {
  const deadline = Date.now() + timing.waitMs;
  let problem = "no answer";
  for (;;) {
    try {
      const response = await fetchFn(`${origin}/api/health`, { headers: { accept: "application/json", ...headers }, signal: AbortSignal.timeout(10_000) });
      const text = await response.text();
      let report: HealthReport | undefined;
      try {
        report = JSON.parse(text) as HealthReport;
      } catch {
        problem = `answered ${response.status} without a health report (${text.slice(0, 80).replace(/\s+/g, " ")})`;
      }
      if (report) {
        const schema = schemaProblem(report, tag);
        if (!schema) return null;
        // The report names what is missing (never a value): shown whole, the operator sees why.
        problem = report.status && report.status !== "ok" ? `${schema} (${JSON.stringify(report).slice(0, 300)})` : schema;
        // A version that answers degraded will not heal by waiting.
        if (report.status === "degraded" && report.schema?.expected === tag && report.schema?.version === tag) return problem;
      }
    } catch (error) {
      problem = `no answer (${(error as Error).message})`;
    }
    if (Date.now() >= deadline) return problem;
    await new Promise((resolve) => setTimeout(resolve, timing.pollMs));
  }
}

export interface SmokeTarget {
  origin: string;
  token: string;
  agentId: string;
  headers: Record<string, string>;
}

interface RunAnswer {
  id?: string;
  generating?: boolean;
  errors?: { code: string; message: string }[];
}

/**
 * A direct run of the canary agent through the API: post a message, wait for its generation
 * to end, and require an assistant row and no error. The run is archived afterwards so the
 * canary's history stays readable. Null when it passed.
 */
export async function smokeProblem(target: SmokeTarget, timing: CheckTiming, fetchFn: Fetch = fetch): Promise<string | null> {
  const headers = { authorization: `Bearer ${target.token}`, "content-type": "application/json", accept: "application/json", ...target.headers };
  const api = (path: string, init: RequestInit = {}) => fetchFn(`${target.origin}/api${path}`, { ...init, headers, signal: AbortSignal.timeout(15_000) });
  let runId: string;
  try {
    const created = await api(`/agents/${encodeURIComponent(target.agentId)}/runs`, {
      method: "POST",
      body: JSON.stringify({ message: "Deploy smoke test: answer with one word." }),
    });
    const body = (await created.json().catch(() => ({}))) as RunAnswer & { error?: { code?: string } };
    if (!created.ok || !body.id) return `POST /api/agents/:id/runs answered ${created.status}${body.error?.code ? ` ${body.error.code}` : ""}`;
    runId = body.id;
  } catch (error) {
    return `no answer to POST /api/agents/:id/runs (${(error as Error).message})`;
  }
  const deadline = Date.now() + timing.waitMs;
  let problem = "the run did not finish";
  for (;;) {
    try {
      const run = (await (await api(`/runs/${runId}`)).json()) as RunAnswer;
      if (run.errors?.length) return `run ${runId} ended with ${run.errors.map((e) => e.code).join(", ")}`;
      if (!run.generating) {
        const rows = (await (await api(`/runs/${runId}/messages`)).json()) as { data?: { role?: string }[] };
        if (rows.data?.some((row) => row.role === "assistant")) {
          await api(`/runs/${runId}/archive`, { method: "POST" }).catch(() => undefined);
          return null;
        }
      }
    } catch (error) {
      problem = `no answer about run ${runId} (${(error as Error).message})`;
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, timing.pollMs));
  }
  return `${problem} within ${Math.round(timing.waitMs / 1000)} s`;
}
