/**
 * bench/webhooks: the GitHub App's webhook door on a local stack (issue 33).
 *
 * - Throughput (default): an organisation holding a claimed installation; DELIVERIES distinct
 *   signed deliveries of a kind the platform records and ignores (`issues` closed) sent at
 *   CONCURRENCY, then every one again (even ones under their delivery id, as GitHub redelivers;
 *   odd ones under a new id, a captured body replayed). Prints deliveries/s and the answers'
 *   p50/p99 of each pass, then checks in the database and through `GET /api/github/deliveries`
 *   that exactly DELIVERIES rows exist, none doubled, none lost, and that every replay was
 *   answered duplicate. Goal: 200 deliveries/s on 2 cores. As a yardstick it first prints
 *   `GET /api/health` (one database round trip too) at the same concurrency.
 * - `--latency`: webhook receipt → task message (goal under 1 s with a waiting task). A task
 *   whose pull request is #PR waits; a writer's review comment on #PR is delivered signed, and
 *   the time runs until the comment is in `GET /api/tasks/:id/messages`. REPEAT times.
 *
 * - `--acted`: the same with deliveries the organisation's inbox acts on (an issue comment that
 *   mentions no agent: kept pending, handed to the inbox, the sender's access read from the
 *   forge, recorded ignored); prints also how long the inbox took to act on all of them.
 *
 *   npx tsx bench/webhooks.ts [--deliveries 2000] [--concurrency 64] [--acted]
 *   npx tsx bench/webhooks.ts --latency [--repeat 20]
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { signWebhook } from "../core/github/webhook-signature";
import { claimInstallation } from "../scripts/forge/claim";
import { benchStack, quantile } from "./bench-stack";

const { values } = parseArgs({
  options: {
    deliveries: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "64" },
    latency: { type: "boolean", default: false },
    acted: { type: "boolean", default: false },
    repeat: { type: "string", default: "20" },
  },
});
const DELIVERIES = Number(values.deliveries);
const CONCURRENCY = Number(values.concurrency);
const REPEAT = Number(values.repeat);
/** Given to a stack whose forge keeps no webhook secret of its own; the forge's wins where it has one. */
const OWN_SECRET = `bench-webhook-secret-${randomUUID()}`;
const ACCOUNT = "bench-hooks";
const REPO = `${ACCOUNT}/app`;

/** The Worker's warnings and errors, printed when a delivery went wrong. */
const warnings: string[] = [];
const bench = await benchStack({
  containers: "off",
  vars: { GITHUB_WEBHOOK_SECRET: OWN_SECRET },
  output: (line) => void (/"level":"(warn|error)"/.test(line) && warnings.push(line)),
});
const { stack, api } = bench;
/** The secret the Worker checks: the local forge's App keeps one beside it (scripts/forge/local-app.ts). */
const SECRET = forgeWebhookSecret() ?? OWN_SECRET;

function forgeWebhookSecret(): string | undefined {
  const file = join(bench.stateDir, "forge", "app.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { webhook_secret?: string }).webhook_secret : undefined;
}
/** An API call answering its status and JSON, as the claim helper takes it. */
const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json().catch(() => null)) as any };
};

/** One signed delivery; its answer's status, JSON and time. */
async function deliver(event: string, body: string, deliveryId: string) {
  const started = performance.now();
  const res = await fetch(`${stack.apiUrl}/api/github/webhooks`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": event,
      "x-github-delivery": deliveryId,
      "x-hub-signature-256": await signWebhook(SECRET, body),
    },
    body,
  });
  const json = (await res.json().catch(() => null)) as any;
  return { status: res.status, json, ms: performance.now() - started };
}

/** Runs `work` for 0..count-1 with `concurrency` at a time; the wall time in ms. */
async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
  return performance.now() - started;
}

const figures = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return `p50 ${quantile(sorted, 0.5).toFixed(1)} ms  p99 ${quantile(sorted, 0.99).toFixed(1)} ms  max ${sorted.at(-1)!.toFixed(1)} ms`;
};

try {
  if (!stack.forge) throw new Error("the bench needs the local forge");
  const forgeAdmin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.forge!.adminUrl}${path}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    if (res.status >= 400) throw new Error(`forge ${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json().catch(() => null) as Promise<any>;
  };
  await forgeAdmin("POST", "/repos", { full_name: REPO, private: true });
  const claimed = await claimInstallation(call, stack.forge.adminUrl, { account: ACCOUNT, repositories: ["app"] });
  if (claimed.connection.status !== 201) throw new Error(`the claim failed: ${JSON.stringify(claimed.connection.json)}`);
  const installation = { id: claimed.installationId };
  const common = { installation, repository: { full_name: REPO, name: "app" }, sender: { login: ACCOUNT, id: 1, type: "User" } };

  if (values.latency) await latency(claimed.connection.json.id as string, common);
  else await throughput(common);
} finally {
  await bench.stop();
}

async function throughput(common: Record<string, unknown>) {
  const event = values.acted ? "issue_comment" : "issues";
  const issue = (i: number) => ({
    number: i + 1,
    title: `Issue ${i + 1}`,
    body: "done",
    html_url: `https://github.com/${REPO}/issues/${i + 1}`,
    labels: [],
    state: "open",
  });
  const bodies = Array.from({ length: DELIVERIES }, (_, i) =>
    JSON.stringify(
      values.acted
        ? {
            action: "created",
            issue: issue(i),
            comment: { id: i + 1, body: "Thanks!", html_url: `https://github.com/${REPO}/issues/${i + 1}#c`, user: { login: ACCOUNT } },
            ...common,
          }
        : { action: "closed", issue: { ...issue(i), state: "closed" }, ...common },
    ),
  );
  const expected = values.acted ? { status: 202, outcome: "pending" } : { status: 200, outcome: "ignored" };
  const ids = bodies.map(() => randomUUID());
  // The stack's own floor: a request that also makes one database round trip, at the same concurrency.
  const health: number[] = [];
  const healthWall = await pool(DELIVERIES, CONCURRENCY, async () => {
    const started = performance.now();
    await (await fetch(`${stack.apiUrl}/api/health`)).arrayBuffer();
    health.push(performance.now() - started);
  });
  const first: number[] = [];
  const firstWrong: string[] = [];
  const firstWall = await pool(DELIVERIES, CONCURRENCY, async (i) => {
    const res = await deliver(event, bodies[i]!, ids[i]!);
    first.push(res.ms);
    if (res.status !== expected.status || res.json?.outcome !== expected.outcome) firstWrong.push(`${i}: ${res.status} ${JSON.stringify(res.json)}`);
  });
  const replays: number[] = [];
  const notDuplicate: string[] = [];
  const replayWall = await pool(DELIVERIES, CONCURRENCY, async (i) => {
    // Even: GitHub's redelivery (same id); odd: the captured body under a new id.
    const res = await deliver(event, bodies[i]!, i % 2 === 0 ? ids[i]! : randomUUID());
    replays.push(res.ms);
    if (res.status !== 200 || res.json?.duplicate !== true) notDuplicate.push(`${i}: ${res.status} ${JSON.stringify(res.json)}`);
  });

  const sent = performance.now();
  let drainMs: number | null = null;
  if (values.acted) {
    // The inbox acts after the answers: wait until no delivery is pending or being acted on.
    for (;;) {
      const { rows } = await bench.db.query<{ n: string }>(
        "select count(*) as n from forge_deliveries where outcome in ('pending', 'handling') and repository = $1",
        [REPO],
      );
      if (Number(rows[0]!.n) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    drainMs = performance.now() - sent + replayWall;
  }
  console.log(
    `webhooks: ${DELIVERIES} distinct deliveries (${values.acted ? "issue_comment.created, acted on by the inbox" : "issues.closed, recorded and ignored"}), concurrency ${CONCURRENCY}`,
  );
  console.log(`GET /api/health ${((DELIVERIES / healthWall) * 1000).toFixed(0)} requests/s   ${figures(health)}   (the stack's floor, for comparison)`);
  console.log(`first pass   ${((DELIVERIES / firstWall) * 1000).toFixed(0)} deliveries/s   ${figures(first)}`);
  console.log(`replays      ${((DELIVERIES / replayWall) * 1000).toFixed(0)} deliveries/s   ${figures(replays)}`);
  if (drainMs !== null) {
    const { rows: outcomes } = await bench.db.query<{ outcome: string; n: string }>(
      "select outcome, count(*) as n from forge_deliveries where repository = $1 group by outcome",
      [REPO],
    );
    console.log(
      `inbox        all ${DELIVERIES} acted on ${(drainMs / 1000).toFixed(1)} s after the first pass ended (${((DELIVERIES / drainMs) * 1000).toFixed(0)} deliveries/s); outcomes ${outcomes.map((o) => `${o.outcome} ${o.n}`).join(", ")}`,
    );
  }

  const { rows } = await bench.db.query<{ n: string; ids: string; bodies: string }>(
    "select count(*) as n, count(distinct delivery_id) as ids, count(distinct body_sha256) as bodies from forge_deliveries where event = $2 and repository = $1",
    [REPO, event],
  );
  const stored = await bench.db.query<{ delivery_id: string }>("select delivery_id from forge_deliveries where event = $2 and repository = $1", [REPO, event]);
  const storedIds = new Set(stored.rows.map((r) => r.delivery_id));
  const lost = ids.filter((id) => !storedIds.has(id)).length;
  let listed = 0;
  let cursor: string | null = null;
  do {
    const page: { data: unknown[]; next_cursor: string | null } = await api(
      "GET",
      `/api/github/deliveries?limit=200&repository=${REPO}${cursor ? `&cursor=${cursor}` : ""}`,
    );
    listed += page.data.length;
    cursor = page.next_cursor;
  } while (cursor);
  const n = Number(rows[0]!.n);
  console.log(
    `rows ${n} (distinct delivery ids ${rows[0]!.ids}, bodies ${rows[0]!.bodies}); listed ${listed}; lost ${lost}; first answers not ignored ${firstWrong.length}; replays not duplicate ${notDuplicate.length}`,
  );
  for (const wrong of [...firstWrong, ...notDuplicate].slice(0, 5)) console.log(`  e.g. ${wrong}`);
  const ok =
    n === DELIVERIES && Number(rows[0]!.ids) === DELIVERIES && lost === 0 && listed === DELIVERIES && firstWrong.length === 0 && notDuplicate.length === 0;
  console.log(ok ? "exactly one row per delivery: none doubled, none lost" : "MISMATCH: see the counts above");
  if (!ok) process.exitCode = 1;
}

/**
 * Receipt → task message: a waiting task whose pull request is #PR (set in the database: no box
 * runs here), a writer's review comment on #PR, and the time until the task lists the message.
 */
async function latency(connectionId: string, common: Record<string, unknown>) {
  const PR = 1;
  const reviewer = "bench-reviewer";
  const forgeAdmin = (method: string, path: string, body?: unknown) =>
    fetch(`${stack.forge!.adminUrl}${path}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await forgeAdmin("PUT", `/repos/${REPO}/collaborators/${reviewer}`, { permission: "write" });
  const guild = await api("POST", "/api/guilds", { name: "Webhook latency" });
  const agent = await api("POST", `/api/guilds/${guild.id}/agents`, { name: "Coder", coding: true });
  const repository = await api("POST", `/api/guilds/${guild.id}/repositories`, { full_name: REPO, connection_id: connectionId, default_branch: "main" });
  const task = await api("POST", `/api/guilds/${guild.id}/tasks`, { title: "Review me", agent_id: agent.id, repository_id: repository.id });
  const waits: number[] = [];
  let missed = 0;
  for (let i = 0; i < REPEAT; i++) {
    await bench.db.query("update tasks set status = 'waiting', pull_request_number = $2, resume_at = null where id = $1", [task.id, PR]);
    const marker = `bench-review-${i}-${randomUUID()}`;
    const body = JSON.stringify({
      action: "created",
      comment: {
        id: 10_000 + i,
        body: `Please rename this (${marker})`,
        path: "src/a.ts",
        line: 3,
        html_url: `https://github.com/${REPO}/pull/${PR}#discussion_r${10_000 + i}`,
      },
      pull_request: { number: PR, head: { ref: `factory/task/${task.key}`, sha: "0".repeat(40) } },
      ...common,
      sender: { login: reviewer, id: 4242, type: "User" },
    });
    const started = performance.now();
    const res = await deliver("pull_request_review_comment", body, randomUUID());
    if (res.status !== 202) throw new Error(`the delivery was answered ${res.status}: ${JSON.stringify(res.json)}`);
    let seen = false;
    while (!seen && performance.now() - started < 10_000) {
      const page: { data: Array<{ content: string }> } = await api("GET", `/api/tasks/${task.id}/messages?limit=5`);
      seen = page.data.some((m) => m.content.includes(marker));
      if (!seen) await new Promise((r) => setTimeout(r, 10));
    }
    if (seen) waits.push(performance.now() - started);
    else missed++;
  }
  console.log(`webhooks --latency: receipt → task message, ${REPEAT} review comments on a waiting task's pull request`);
  if (waits.length)
    console.log(
      `delivered ${waits.length}: ${figures(waits)}${
        quantile(
          [...waits].sort((a, b) => a - b),
          0.5,
        ) < 1000
          ? ""
          : "  (over the 1 s goal)"
      }`,
    );
  if (missed) {
    console.log(`${missed} never became a task message within 10 s`);
    const { rows } = await bench.db.query<{ outcome: string; detail: string | null; error: string | null }>(
      "select outcome, detail, error from forge_deliveries where event = 'pull_request_review_comment' and outcome <> 'accepted'",
    );
    for (const row of rows) console.log(`  delivery ${row.outcome}: ${row.detail ?? row.error ?? ""}`);
    for (const line of warnings.slice(-10)) console.log(`  ${line.slice(0, 400)}`);
    process.exitCode = 1;
  }
}
