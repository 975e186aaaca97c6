import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { messages, runs, tasks } from "../../core/db/schema";
import { moveTask } from "../../core/db/task-rows";
import { volumeObjectKey } from "../../core/tasks/key";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";
import { seedTask } from "../../test/workerd/task-runs";
import { fileTask, recordStarts, seedTaskGuild, testEnv, withDb } from "../../test/workerd/tasks";

/** Tasks through the API (TASK-001..008, TASK-019, TASK-030, TASK-038): filing, listing, messages and a person's actions. */

type Seeded = Awaited<ReturnType<typeof seedTaskGuild>>;

describe("filing tasks", () => {
  let org: Seeded;
  beforeAll(async () => {
    org = await seedTaskGuild("Filing", "acme/web-app");
    // The queue's starts are refused (a recorder stands in for the task object), so filed tasks stay queued.
    await recordStarts(org.organisationId, async () => ({ ok: false, status: 503, code: "task.runs_unavailable", message: "not here" }));
  });

  it("TASK-003: a filed task is queued under the repository's next key, on the repository's default branch unless one is named", async () => {
    const first = await fileTask(org, { description: "It fails on main" });
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    expect(first.json).toMatchObject({
      key: "WEBAPP-1",
      number: 1,
      status: "queued",
      guild_id: org.guildId,
      agent_id: org.agentId,
      repository_id: org.repositoryId,
      title: "Fix the build",
      description: "It fails on main",
      base_branch: "trunk",
      branch: "factory/task/WEBAPP-1",
      allow_force_push: false,
      resume_at: null,
      closed_at: null,
      pull_request: null,
    });
    const second = await fileTask(org, { base_branch: "release/1.2", allow_force_push: true });
    expect(second.json).toMatchObject({ key: "WEBAPP-2", base_branch: "release/1.2", allow_force_push: true });
  });

  it("TASK-003: tasks filed at the same moment take distinct numbers, none skipped", async () => {
    const fresh = await seedTaskGuild("Concurrent filing", "acme/api");
    await recordStarts(fresh.organisationId, async () => ({ ok: false, status: 503, code: "task.runs_unavailable", message: "not here" }));
    const filed = await Promise.all(Array.from({ length: 8 }, (_, i) => fileTask(fresh, { title: `Task ${i}` })));
    expect(filed.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(filed.map((r) => r.json.number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(new Set(filed.map((r) => r.json.key)).size).toBe(8);
  });

  it("HARDEN-TASK: filing names the bad field in a 422: a non-coding or foreign agent, a foreign repository, title, description, base_branch", async () => {
    const plain = await newAgent(org.token, org.guildId);
    const other = await seedTaskGuild("Filing elsewhere");
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ agent_id: plain.id }, "agent_id"],
      [{ agent_id: other.agentId }, "agent_id"],
      [{ agent_id: "not-a-uuid" }, "agent_id"],
      [{ repository_id: other.repositoryId }, "repository_id"],
      [{ repository_id: crypto.randomUUID() }, "repository_id"],
      [{ title: "" }, "title"],
      [{ title: "x".repeat(201) }, "title"],
      [{ title: "two\nlines" }, "title"],
      [{ description: "x".repeat(20_001) }, "description"],
      [{ base_branch: "bad..ref" }, "base_branch"],
      [{ base_branch: "-x" }, "base_branch"],
      [{ allow_force_push: "yes" }, "allow_force_push"],
      [{ extra: 1 }, "extra"],
    ];
    for (const [body, field] of cases) {
      const res = await fileTask(org, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.error.code).toBe("validation.failed");
      expect(res.json.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
    expect((await fileTask(org, { title: "x".repeat(200), description: "x".repeat(20_000) })).status).toBe(201);
  });

  it("HARDEN-TASK: another organisation's guild is 404 guild.not_found", async () => {
    const other = await seedGuild("Filing stranger");
    const res = await call("POST", `/api/guilds/${other.guildId}/tasks`, {
      token: org.token,
      body: { title: "x", agent_id: org.agentId, repository_id: org.repositoryId },
    });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe("guild.not_found");
  });
});

describe("listing and reading tasks", () => {
  let org: Seeded;
  const ids: string[] = [];
  beforeAll(async () => {
    org = await seedTaskGuild("Listing", "acme/lister");
    await recordStarts(org.organisationId, async () => ({ ok: false, status: 503, code: "task.runs_unavailable", message: "not here" }));
    for (let i = 0; i < 5; i++) ids.push((await fileTask(org, { title: `Task ${i}` })).json.id);
    await withDb(async (db) => {
      await moveTask(db, ids[1]!, ["queued"], "waiting");
      await moveTask(db, ids[3]!, ["queued"], "blocked");
    });
  });

  it("TASK-001: the guild's tasks list newest first by status, page by page", async () => {
    const all = await call("GET", `/api/guilds/${org.guildId}/tasks?limit=2`, { token: org.token });
    expect(all.status).toBe(200);
    expect(all.json.data.map((t: { id: string }) => t.id)).toEqual([ids[4], ids[3]]);
    const next = await call("GET", `/api/guilds/${org.guildId}/tasks?limit=2&cursor=${all.json.next_cursor}`, { token: org.token });
    expect(next.json.data.map((t: { id: string }) => t.id)).toEqual([ids[2], ids[1]]);
    const open = await call("GET", `/api/guilds/${org.guildId}/tasks?status=waiting,blocked`, { token: org.token });
    expect(open.json).toEqual({
      data: [expect.objectContaining({ id: ids[3], status: "blocked" }), expect.objectContaining({ id: ids[1], status: "waiting" })],
      next_cursor: null,
    });
  });

  it("HARDEN-TASK: a bad status, limit or cursor is a 422 naming it", async () => {
    for (const [q, field] of [
      ["status=queued,nope", "status"],
      ["limit=0", "limit"],
      ["cursor=abc", "cursor"],
      ["other=1", "other"],
    ] as const) {
      const res = await call("GET", `/api/guilds/${org.guildId}/tasks?${q}`, { token: org.token });
      expect(res.status, q).toBe(422);
      expect(res.json.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
  });

  it("TASK-002: a task reads with its runs' summary; its runs and messages list", async () => {
    const task = await call("GET", `/api/tasks/${ids[0]}`, { token: org.token });
    expect(task.status).toBe(200);
    expect(task.json).toMatchObject({ id: ids[0], key: "LISTER-1", runs: { total: 0, active: null, latest: null } });
    expect((await call("GET", `/api/tasks/${ids[0]}/runs`, { token: org.token })).json).toEqual({ data: [], next_cursor: null });
    expect((await call("GET", `/api/tasks/${ids[0]}/messages`, { token: org.token })).json).toEqual({ data: [], next_cursor: null });
  });

  it("HARDEN-TASK: another organisation's task is 404 task.not_found on every route, as is a malformed id", async () => {
    const stranger = await seedGuild("Task stranger");
    const routes: Array<[string, string, unknown?]> = [
      ["GET", ""],
      ["GET", "/runs"],
      ["GET", "/messages"],
      ["POST", "/messages", { content: "hi" }],
      ["POST", "/cancel"],
      ["POST", "/done"],
      ["POST", "/reset-workspace"],
      ["GET", "/events"],
    ];
    for (const [method, suffix, body] of routes) {
      for (const id of [ids[0], "not-a-task"]) {
        const res = await call(method, `/api/tasks/${id}${suffix}`, { token: stranger.token, body });
        expect(res.status, `${method} ${suffix} ${id}`).toBe(404);
        expect(res.json.error.code).toBe("task.not_found");
      }
    }
    expect((await call("GET", `/api/tasks/${ids[0]}/events`)).status).toBe(401);
    expect((await call("GET", `/api/tasks/${ids[0]}`, { token: org.token })).json.status).toBe("queued");
  });
});

describe("a person's actions on a task", () => {
  let org: Seeded;
  let started: string[];
  beforeAll(async () => {
    org = await seedTaskGuild("Actions", "acme/actions");
    started = await recordStarts(org.organisationId, async () => ({ ok: false, status: 503, code: "task.runs_unavailable", message: "not here" }));
  });

  const statusOf = async (id: string) => withDb(async (db) => (await db.select().from(tasks).where(eq(tasks.id, id)))[0]!);

  it("TASK-003 / TASK-019: a message to a waiting task queues it again and wakes the queue; to a closed one reopens it; it lists undelivered", async () => {
    const id = (await fileTask(org)).json.id;
    await withDb((db) => moveTask(db, id, ["queued"], "waiting"));
    started.length = 0;
    const sent = await call("POST", `/api/tasks/${id}/messages`, { token: org.token, body: { content: "Also fix the lint" } });
    expect(sent.status).toBe(202);
    expect(sent.json).toMatchObject({ task_id: id, content: "Also fix the lint", delivered_at: null, delivered_run_id: null });
    // The queue tried to start it at once; its start was refused, so it is queued again.
    expect(started).toEqual([id]);
    expect(await statusOf(id)).toMatchObject({ status: "queued", closedAt: null });

    await withDb((db) => moveTask(db, id, ["queued"], "cancelled", { closedAt: "now" }));
    await call("POST", `/api/tasks/${id}/messages`, { token: org.token, body: { content: "Try again" } });
    expect(await statusOf(id)).toMatchObject({ status: "queued", closedAt: null });
    const listed = await call("GET", `/api/tasks/${id}/messages`, { token: org.token });
    expect(listed.json.data.map((m: { content: string }) => m.content)).toEqual(["Try again", "Also fix the lint"]);
  });

  it("TASK-019: a message to a running task leaves it running, for its run to take at a turn boundary", async () => {
    const id = (await fileTask(org)).json.id;
    await withDb((db) => moveTask(db, id, ["queued"], "running"));
    expect((await call("POST", `/api/tasks/${id}/messages`, { token: org.token, body: { content: "Also this" } })).status).toBe(202);
    expect(await statusOf(id)).toMatchObject({ status: "running" });
  });

  it("TASK-019: a message to a due task keeps its place in line", async () => {
    const id = (await fileTask(org)).json.id;
    const resumeAt = new Date(Date.now() + 120_000);
    await withDb((db) => moveTask(db, id, ["queued"], "rate_limited", { resumeAt }));
    expect((await call("POST", `/api/tasks/${id}/messages`, { token: org.token, body: { content: "More" } })).status).toBe(202);
    expect(await statusOf(id)).toMatchObject({ status: "rate_limited", resumeAt });
  });

  it("HARDEN-TASK: an empty or oversized message is a 422 naming content", async () => {
    const id = (await fileTask(org)).json.id;
    for (const body of [{ content: "   " }, { content: "x".repeat(200_001) }, {}, { content: 5 }]) {
      const res = await call("POST", `/api/tasks/${id}/messages`, { token: org.token, body });
      expect(res.status).toBe(422);
      expect(res.json.error.details.fields[0].field).toBe("content");
    }
  });

  it("TASK-030: cancel closes the task and answers it again unchanged; done closes even a cancelled task", async () => {
    const id = (await fileTask(org)).json.id;
    const cancelled = await call("POST", `/api/tasks/${id}/cancel`, { token: org.token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ id, status: "cancelled", closed_at: expect.any(String) });
    const again = await call("POST", `/api/tasks/${id}/cancel`, { token: org.token });
    expect(again.json).toMatchObject({ status: "cancelled", closed_at: cancelled.json.closed_at });
    const done = await call("POST", `/api/tasks/${id}/done`, { token: org.token });
    expect(done.json).toMatchObject({ status: "completed", closed_at: expect.any(String) });
    expect((await call("POST", `/api/tasks/${id}/done`, { token: org.token })).json).toMatchObject({ status: "completed", closed_at: done.json.closed_at });
    expect((await call("POST", `/api/tasks/${id}/cancel`, { token: org.token })).json.status).toBe("completed");
  });

  it("TASK-038: reset workspace deletes the task's volume through its object; the event stream is the object's too", async () => {
    const filed = (await fileTask(org)).json;
    const volume = volumeObjectKey(filed.repository_id, filed.key);
    await testEnv.SANDBOX_HOMES.put(volume, "a cached checkout");
    const res = await call("POST", `/api/tasks/${filed.id}/reset-workspace`, { token: org.token });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({ id: filed.id, key: filed.key });
    expect(await testEnv.SANDBOX_HOMES.head(volume)).toBeNull();
    // The event stream is reached once the caller owns the task: it opens with the task's status.
    const { exports } = await import("cloudflare:workers");
    const worker = (exports as unknown as { default: Fetcher }).default;
    const events = await worker.fetch(`http://api.test/api/tasks/${filed.id}/events`, { headers: { authorization: `Bearer ${org.token}` } });
    expect(events.status).toBe(200);
    expect(events.headers.get("content-type")).toContain("text/event-stream");
    await events.body?.cancel();
  });
});

describe("task settings", () => {
  it("TASK-007 / TASK-037: the organisation's task settings read with defaults and change key by key", async () => {
    const { token } = await seedGuild("Task settings");
    const read = await call("GET", "/api/organisation/task-settings", { token });
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ "runs.maxConcurrent": 4, "volumes.retainAfterCloseSeconds": 604_800 });
    const patched = await call("PATCH", "/api/organisation/task-settings", { token, body: { "runs.maxConcurrent": 2 } });
    expect(patched.json).toEqual({ ...read.json, "runs.maxConcurrent": 2 });
    const again = await call("PATCH", "/api/organisation/task-settings", { token, body: { "volumes.idleTtlSeconds": 3600 } });
    expect(again.json).toEqual({ ...read.json, "runs.maxConcurrent": 2, "volumes.idleTtlSeconds": 3600 });
  });

  it("HARDEN-TASK: a bad or unknown task setting is a 422 naming the key", async () => {
    const { token } = await seedGuild("Task settings bad");
    for (const [body, field] of [
      [{ "runs.maxConcurrent": 0 }, "runs.maxConcurrent"],
      [{ "runs.maxConcurrent": 1.5 }, "runs.maxConcurrent"],
      [{ "volumes.idleTtlSeconds": "1" }, "volumes.idleTtlSeconds"],
      [{ "runs.other": 1 }, "runs.other"],
    ] as const) {
      const res = await call("PATCH", "/api/organisation/task-settings", { token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
    expect((await call("GET", "/api/organisation/task-settings", { token })).json["runs.maxConcurrent"]).toBe(4);
  });
});

describe("a task's run through the run routes", () => {
  it("HARDEN-TASK: messages, cancel and resume of a task's run are refused with run.task_run naming the task, and its transcript is untouched", async () => {
    const seeded = await seedTask();
    const runId = await withDb(async (db) => {
      const [run] = await db
        .insert(runs)
        .values({ agentId: seeded.agentId, kind: "task", status: "completed", metadata: { task_id: seeded.task.id } })
        .returning();
      return run!.id;
    });
    for (const [path, body] of [
      ["/messages", { content: "hello" }],
      ["/cancel", undefined],
      ["/resume", undefined],
    ] as const) {
      const res = await call("POST", `/api/runs/${runId}${path}`, { token: seeded.token, body });
      expect(res.status, path).toBe(409);
      expect(res.json.error).toMatchObject({ code: "run.task_run", details: { task_id: seeded.task.id } });
    }
    const rows = await withDb((db) => db.select().from(messages).where(eq(messages.runId, runId)));
    expect(rows).toEqual([]);
    const run = await call("GET", `/api/runs/${runId}`, { token: seeded.token });
    expect(run.json.status).toBe("completed");
  });
});
