/**
 * bench/tasks: what a task run costs on real containers, the scripted mock model and the
 * local forge (TASK-007..024).
 *
 * - due → first model call: from the task's `queued_at` (set when it is filed, and again
 *   when a message queues it) to the mock model's `received_at` of the run's first request.
 *   The first run clones a 200-file repository into a new volume; the second (started by a
 *   message once the first ended) is a cold box again, with the volume restored from R2 and
 *   a fetch. Each is split at the task run's `created_at` (the queue's start) and
 *   `connected_at` (box up with its volume, workspace prepared), with the agent object's
 *   `sandbox.ensure` figures (duration, restore) from the log. A run whose workspace could not
 *   be prepared (`task.prepare` logged: the box's git could not reach the gateway) makes no
 *   model call: its figures stop at the box, and the reason is printed.
 * - finalize: from the run's last assistant row (its last turn's end) to the task run's
 *   `ended_at` (written after the last push, the WIP snapshot, the volume's save and the
 *   box's removal), for a run released by the keep-alive (runs.keepAliveSeconds=1, the 1 s
 *   wait subtracted) and one ended by complete_task; with `sandbox.destroy`'s save_ms.
 * - a second task of the same repository: its first run starts from the repository's seed
 *   that the first task's first run saved (decision 0037), and fetches into it.
 * - the queue: TASKS tasks filed back to back with runs.maxConcurrent 4; the order the runs
 *   started in against the filing order, and the most runs active at once (task runs'
 *   created_at..ended_at).
 *
 * With `--warm 1` the warm pool keeps a standard box started (SANDBOX_WARM_STANDARD, decision
 * 0034); before each filing and each message the bench waits until one waits in the pool, as
 * a task arriving a little later would find it, and says how many runs took one.
 *
 * With `--harness claude-code` the agent's turns are Claude Code's in the box (decision 0032),
 * its model calls through the model gateway: the same figures, for that harness. `--tasks 0`
 * leaves the queue's part out.
 *
 *   npx tsx bench/tasks.ts [--repeat 3] [--tasks 20] [--harness platform|claude-code] [--warm 1] [--files 200]
 */
import { parseArgs } from "node:util";
import { claimInstallation } from "../scripts/forge/claim";
import { benchStack, quantile } from "./bench-stack";

const { values } = parseArgs({
  options: {
    repeat: { type: "string", default: "3" },
    files: { type: "string", default: "200" },
    tasks: { type: "string", default: "20" },
    harness: { type: "string", default: "platform" },
    warm: { type: "string", default: "0" },
  },
});
const WARM = Number(values.warm);
const CLAUDE_CODE = values.harness === "claude-code";
const REPEAT = Number(values.repeat);
const TASKS = Number(values.tasks);
const KEEP_ALIVE_S = 1;

/** Log lines of the stack (the objects' lines carry their own `at`). */
const lines: Array<{ line: string }> = [];
const bench = await benchStack({
  vars: { SANDBOX_WARM_STANDARD: String(WARM), SANDBOX_WARM_LITE: "0" },
  output: (line) => lines.push({ line }),
});
const { stack, api } = bench;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Task = { id: string; key: string; status: string; queued_at: string };
type TaskRun = { id: string; run_id: string; outcome: string | null; created_at: string; connected_at: string | null; ended_at: string | null };

try {
  if (!stack.containers.enabled || !stack.forge) throw new Error(`no container engine or forge: ${stack.containers.reason ?? "no forge"}`);
  const forgeUrl = stack.forge.adminUrl;
  const forge = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${forgeUrl}${path}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return (await res.json()) as any;
  };
  const mock = async (path: string, body?: unknown) => {
    const res = await fetch(`${stack.mockModelUrl}${path}`, {
      method: body ? "POST" : "GET",
      headers: { "content-type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await res.json()) as any;
  };
  const settings = (patch: Record<string, number>) => api("PATCH", "/api/organisation/task-settings", patch);

  /** A coding agent, and a private repository of `files` files on the forge as the guild's repository. */
  async function setup(files: number) {
    const owner = `bench-${crypto.randomUUID().slice(0, 8)}`;
    const content = Object.fromEntries(Array.from({ length: files }, (_, n) => [`src/file${n}.ts`, `export const n${n} = ${n};\n`.repeat(20)]));
    await forge("POST", "/repos", { full_name: `${owner}/app`, private: true, files: content });
    const claimed = await claimInstallation(async (method, path, body) => ({ status: 201, json: await api(method, path, body) }), forgeUrl, {
      account: owner,
      repositories: [`${owner}/app`],
    });
    const guild = await api("POST", "/api/guilds", { name: `bench tasks ${owner}` });
    const repository = await api("POST", `/api/guilds/${guild.id}/repositories`, { full_name: `${owner}/app`, connection_id: claimed.connection.json.id });
    const model = `bench-task-${crypto.randomUUID().slice(0, 8)}`;
    const agent = await api("POST", `/api/guilds/${guild.id}/agents`, {
      name: "Tasker",
      model,
      coding: true,
      ...(CLAUDE_CODE ? { task_harness: { kind: "claude-code" } } : {}),
    });
    return { guildId: guild.id as string, agentId: agent.id as string, repositoryId: repository.id as string, model };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  const file = (s: Setup, title: string) =>
    api("POST", `/api/guilds/${s.guildId}/tasks`, {
      title,
      description: `${title}, please.`,
      agent_id: s.agentId,
      repository_id: s.repositoryId,
    }) as Promise<Task>;
  const readTask = (id: string) => api("GET", `/api/tasks/${id}`) as Promise<Task>;
  const taskRuns = async (id: string) => ((await api("GET", `/api/tasks/${id}/runs?limit=50`)).data as TaskRun[]).reverse();
  async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs = 300_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value) return value;
      if (Date.now() > deadline)
        throw new Error(
          `timed out waiting for ${what}\n${lines
            .slice(-30)
            .map((l) => l.line)
            .join("\n")}`,
        );
      await sleep(100);
    }
  }
  /** The task's runs once `count` of them have ended. */
  const runsEnded = (id: string, count: number, timeoutMs?: number) =>
    until(
      `${count} ended runs of task ${id}`,
      async () => {
        const runs = await taskRuns(id);
        return runs.length >= count && runs.slice(0, count).every((r) => r.ended_at) ? runs : null;
      },
      timeoutMs,
    );
  /** When the mock model received this model's first request after `after` (epoch ms). */
  const firstCallAfter = (model: string, after: number) =>
    until(`a model request of ${model}`, async () => {
      const { requests } = await mock(`/__requests?model=${encodeURIComponent(model)}`);
      const times = (requests as Array<{ received_at: string }>).map((r) => Date.parse(r.received_at)).filter((t) => t >= after);
      return times.length ? Math.min(...times) : null;
    });
  const lastAssistantRow = async (runId: string) => {
    const rows = (await api("GET", `/api/runs/${runId}/messages?limit=1000`)).data as Array<{ role: string; created_at: string }>;
    const last = rows.findLast((r) => r.role === "assistant");
    if (!last) throw new Error(`run ${runId} has no assistant row`);
    return Date.parse(last.created_at);
  };
  /** The logged figures of `operation` for this agent (or run), in order, with when each line arrived. */
  const logged = (operation: string, id: string) =>
    lines
      .filter((l) => l.line.includes(`"operation":"${operation}"`) && l.line.includes(id))
      .map((l) => JSON.parse(l.line.slice(l.line.indexOf("{"), l.line.lastIndexOf("}") + 1)) as Record<string, any>);

  const count = (text: string) => lines.filter((l) => l.line.includes(text)).length;
  /** With a pool, until a box waits in it (boxes started less boxes taken). */
  const poolReady = () =>
    WARM > 0 ? until("a warm box in the pool", async () => count('"operation":"sandbox.warm_started"') > count('"warm":true'), 120_000) : Promise.resolve();

  // ---- One task, two runs, REPEAT times: cold boxes, the volume, the finalizing.
  await settings({ "runs.maxConcurrent": 4, "runs.keepAliveSeconds": KEEP_ALIVE_S, "runs.maxAutoResumes": 0 });
  const figures: Record<string, number[]> = {};
  const add = (name: string, value: number) => (figures[name] ??= []).push(value);
  const outcomes: string[] = [];
  /** Why a run's workspace could not be prepared (the box's task-prepare), once each. */
  const failures = new Set<string>();
  for (let i = 0; i < REPEAT; i++) {
    const s = await setup(Number(values.files));
    const shell = (command: string) => (CLAUDE_CODE ? { name: "Bash", arguments: { command } } : { name: "shell", arguments: { command } });
    const complete = { name: CLAUDE_CODE ? "mcp__guilds__complete_task" : "complete_task", arguments: { summary: "Wrote one.txt." } };
    await mock("/__script", {
      model: s.model,
      replies: [
        // Run 1: a commit (pushed after the turn, opening the draft pull request) and a file left uncommitted (the WIP snapshot).
        { tool_calls: [shell("echo one > one.txt && git add one.txt && git commit -qm one && echo draft > notes.txt")] },
        { content: "First turn done." },
        // Run 2: the volume and the WIP are back; the task is completed.
        { tool_calls: [shell("cat notes.txt one.txt"), complete] },
        { content: "Done." },
      ],
    });
    await poolReady();
    const task = await file(s, `Bench task ${i}`);
    await runsEnded(task.id, 1);
    await measureRun(s, task.id, 1, Date.parse(task.queued_at));
    // Run 2, started by a message once run 1 ended: a cold box with the volume restored and a fetch.
    await poolReady();
    await api("POST", `/api/tasks/${task.id}/messages`, { content: "Carry on." });
    const requeued = await readTask(task.id);
    await runsEnded(task.id, 2);
    await measureRun(s, task.id, 2, Date.parse(requeued.queued_at));
    // A second task of the repository: its first run starts from the seed the first one saved (decision 0037).
    await mock("/__script", { model: s.model, replies: [{ tool_calls: [shell("git log --oneline -1")] }, { content: "Looked." }] });
    await poolReady();
    const next = await file(s, `Bench task ${i}, seeded`);
    const [seededRun] = await runsEnded(next.id, 1);
    const seeded = logged("task.prepared", seededRun!.run_id)[0];
    outcomes.push(`seeded task: ${seededRun!.outcome}, seeded ${seeded?.seeded}`);
    add("next task's first run (seeded): due → first model call", (await firstCallAfter(s.model, Date.parse(next.queued_at))) - Date.parse(next.queued_at));
    if (seeded) add("next task's first run (seeded): task-prepare in the box (a fetch into the seed)", seeded.prepare_ms);
    for (const [step, ms] of Object.entries((seeded?.box ?? {}) as Record<string, number>)) add(`next task's first run (seeded):   task-prepare ${step}`, ms);
  }

  /**
   * The figures of the task's `n`th run (1-based), due at `due`: each stage it reached, with the
   * agent object's log lines (their own `at`) for the box. A run whose workspace could not be
   * prepared has no model call: its figures stop at the box, and why is kept.
   */
  async function measureRun(s: Setup, taskId: string, n: number, due: number) {
    const run = (await taskRuns(taskId))[n - 1]!;
    const created = Date.parse(run.created_at);
    const ended = Date.parse(run.ended_at!);
    const ensure = logged("sandbox.ensure", s.agentId)[n - 1];
    const destroy = logged("sandbox.destroy", s.agentId)[n - 1];
    const prepareFailed = logged("task.prepare", run.run_id)[0];
    const restore = n === 1 ? "empty volume" : "volume restore";
    outcomes.push(`run ${n}: ${run.outcome}`);
    add(`run ${n}: due → run created (the queue's start)`, created - due);
    if (ensure) {
      add(`run ${n}: run created → box up (sandbox.ensure logged)`, Date.parse(ensure.at) - created);
      add(`run ${n}: sandbox.ensure (start, guest, ${restore})`, ensure.duration_ms);
      if (n > 1) {
        add(`run ${n}: of which the volume restore`, ensure.restore_ms);
        add(`run ${n}: restored volume (KiB)`, Math.round((ensure.restored_bytes ?? 0) / 1024));
      }
    }
    const prepared = logged("task.prepared", run.run_id)[0];
    if (prepared) add(`run ${n}: of which task-prepare in the box (${n === 1 ? "clone" : "fetch"})`, prepared.prepare_ms);
    const seed = logged("task.seed", run.run_id)[0];
    if (seed?.reason === "saved") {
      add(`run ${n}: the repository's seed saved before the first turn`, seed.duration_ms);
      add(`run ${n}: the repository's seed (KiB)`, Math.round(seed.saved_bytes / 1024));
    }
    for (const [step, ms] of Object.entries((prepared?.box ?? {}) as Record<string, number>)) add(`run ${n}:   task-prepare ${step}`, ms);
    if (run.connected_at) {
      const connected = Date.parse(run.connected_at);
      const call = await firstCallAfter(s.model, due);
      add(`run ${n}: due → first model call`, call - due);
      add(`run ${n}: run created → connected (box, ${restore}, ${n === 1 ? "clone" : "fetch"})`, connected - created);
      add(`run ${n}: connected → first model call`, call - connected);
      const lastTurn = await lastAssistantRow(run.run_id);
      if (run.outcome === "end_turn")
        add(`run ${n} (keep-alive): last turn's end → ended_at, less the ${KEEP_ALIVE_S} s wait`, ended - lastTurn - KEEP_ALIVE_S * 1000);
      else add(`run ${n} (${run.outcome}): last turn's end → ended_at`, ended - lastTurn);
    } else if (prepareFailed) {
      failures.add(
        String(prepareFailed.error)
          .replace(/\/tasks\/[^/]+\/[^/]+\/app\.git/, "/tasks/<task>/<owner>/app.git")
          .slice(0, 300),
      );
      add(`run ${n} (${run.outcome}): prepare's failure logged → ended_at`, ended - Date.parse(prepareFailed.at));
    }
    if (destroy) {
      add("finalize: volume save (sandbox.destroy save_ms)", destroy.save_ms);
      add("finalize: box removal after the save", destroy.duration_ms - destroy.save_ms);
    }
    const endedLog = logged("task.run_ended", run.run_id)[0];
    if (endedLog) add("ended_at → task.run_ended logged (status, stream)", Date.parse(endedLog.at) - ended);
  }

  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const ms = (x: number) => `${Math.round(x).toLocaleString("en")} ms`;
  console.log(`\ntask runs on real containers (local Docker engine, local forge, mock model), harness ${values.harness}, ${REPEAT} tasks of two runs each`);
  console.log(`warm pool ${WARM}: ${count('"warm":true')} boxes taken warm, ${count('"warm":false')} started cold`);
  for (const [name, xs] of Object.entries(figures)) {
    const values = name.endsWith("(KiB)") ? sorted(xs).map((x) => `${x}`) : sorted(xs).map((x) => `${Math.round(x)}`);
    console.log(`${name.padEnd(66)} median ${values[Math.floor(values.length / 2)]}   all ${values.join(", ")}`);
  }
  console.log(`outcomes: ${outcomes.join(", ")}`);
  for (const failure of failures) console.log(`a workspace not prepared: ${failure}`);
  // ---- TASKS tasks at once, four at a time.
  if (TASKS > 0) {
    const crowd = await setup(20);
    await mock("/__script", { model: crowd.model, replies: Array.from({ length: TASKS }, () => ({ content: "done", delay_ms: 2_000 })) });
    const filed: Task[] = [];
    const filingStarted = Date.now();
    for (let i = 0; i < TASKS; i++) filed.push(await file(crowd, `Crowd ${i}`));
    const filingMs = Date.now() - filingStarted;
    const crowdRuns = await Promise.all(filed.map(async (t) => ({ task: t, run: (await runsEnded(t.id, 1, 900_000))[0]! })));
    const spans = crowdRuns.map(({ task, run }, filedAs) => ({
      filedAs,
      queued: Date.parse(task.queued_at),
      start: Date.parse(run.created_at),
      end: Date.parse(run.ended_at!),
    }));
    const startOrder = [...spans].sort((a, b) => a.start - b.start).map((s) => s.filedAs);
    // Pairs started in the other order than they were filed (0: oldest first throughout).
    let inversions = 0;
    for (let a = 0; a < startOrder.length; a++) for (let b = a + 1; b < startOrder.length; b++) if (startOrder[a]! > startOrder[b]!) inversions++;
    let mostActive = 0;
    for (const { start } of spans) mostActive = Math.max(mostActive, spans.filter((s) => s.start <= start && s.end > start).length);
    const waits = spans.map((s) => s.start - s.queued).sort((a, b) => a - b);
    const whole = Math.max(...spans.map((s) => s.end)) - Math.min(...spans.map((s) => s.queued));

    console.log(`\n${TASKS} tasks filed back to back (${ms(filingMs)}), runs.maxConcurrent 4, each run one 2 s model reply, keep-alive ${KEEP_ALIVE_S} s`);
    console.log(`start order by filing index: ${startOrder.join(" ")}`);
    console.log(`pairs started out of filing order: ${inversions}; most runs active at once: ${mostActive}`);
    console.log(`queued → run created: median ${ms(quantile(waits, 0.5))}, max ${ms(waits.at(-1)!)}; first filed → last ended ${ms(whole)}`);
    console.log(`the crowd's outcomes: ${[...new Set(crowdRuns.map((r) => r.run.outcome))].join(", ")}`);
  }
} finally {
  await bench.stop();
}
