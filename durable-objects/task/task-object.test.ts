import { runInDurableObject } from "cloudflare:test";
import { and, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { taskObject } from "../../bindings/objects";
import { runs, taskRuns, tasks } from "../../core/db/schema";
import { EVENT_STREAMS } from "../../core/events/streams";
import { volumeObjectKey } from "../../core/tasks/key";
import { eventMisfits } from "../../test/workerd/sse";
import { activeRunOf, seedTask, testEnv, untilEnded, withDb } from "../../test/workerd/task-runs";
import type { TaskObject } from "./task-object";

interface Event {
  event: string;
  data: any;
}

/** Reads a Server-Sent Events response until `until` holds or the time runs out. */
async function readEvents(response: Response, until: (events: Event[]) => boolean, timeoutMs = 15_000): Promise<Event[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: Event[] = [];
  let buffer = "";
  const deadline = Date.now() + timeoutMs;
  try {
    while (!until(events) && Date.now() < deadline) {
      const read = await Promise.race([
        reader.read(),
        new Promise<{ done: true; value: undefined }>((r) => setTimeout(() => r({ done: true, value: undefined }), Math.max(0, deadline - Date.now()))),
      ]);
      if (read.done) break;
      buffer += read.value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = "message";
        let data = "";
        for (const line of frame.split("\n")) {
          if (line.startsWith("event: ")) name = line.slice(7);
          if (line.startsWith("data: ")) data += line.slice(6);
        }
        if (data) events.push({ event: name, data: JSON.parse(data) });
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}

describe("task object", () => {
  it("TASK-002 / TASK-010 / TASK-029: a box that cannot come up ends the run provisioning_failed and queues the task again 30 s later", async () => {
    const { task } = await seedTask();
    const started = await taskObject(testEnv, task.id).start(task.id);
    expect(started.ok, JSON.stringify(started)).toBe(true);
    const [ended] = await untilEnded(task.id);
    expect(ended!.outcome).toBe("provisioning_failed");
    expect(ended!.connectedAt).toBeNull();
    expect((ended!.report as Record<string, unknown>).outcome).toBe("provisioning_failed");
    const [after] = await withDb((db) => db.select().from(tasks).where(eq(tasks.id, task.id)));
    expect(after!.status).toBe("queued");
    expect(after!.autoResumes).toBe(1);
    expect(after!.lastRunEndedAt).not.toBeNull();
    expect(after!.resumeAt!.getTime() - after!.lastRunEndedAt!.getTime()).toBe(30_000);
    // The transcript is a run of kind task, opened with the task prompt, completed at the end.
    const [run] = await withDb((db) => db.select().from(runs).where(eq(runs.id, ended!.runId)));
    expect(run!.kind).toBe("task");
    expect(run!.status).toBe("completed");
  });

  it("TASK-008: a start while the task has an active run answers 409 task.run_active and writes nothing", async () => {
    const { task, agentId } = await seedTask();
    await activeRunOf(agentId, task.id);
    const answer = await taskObject(testEnv, task.id).start(task.id);
    expect(answer).toMatchObject({ ok: false, status: 409, code: "task.run_active" });
    const rows = await withDb((db) => db.select().from(taskRuns).where(eq(taskRuns.taskId, task.id)));
    expect(rows).toHaveLength(1);
    const taskRunsOfAgent = await withDb((db) =>
      db
        .select()
        .from(runs)
        .where(and(eq(runs.agentId, agentId), eq(runs.kind, "task"))),
    );
    expect(taskRunsOfAgent).toHaveLength(1);
  });

  it("TASK-038: resetWorkspace deletes the task's volume, and is refused while a run is active", async () => {
    const { task, agentId, repositoryId } = await seedTask();
    const key = volumeObjectKey(repositoryId, task.key);
    await testEnv.SANDBOX_HOMES.put(key, new Uint8Array([1, 2, 3]));
    const reset = await taskObject(testEnv, task.id).resetWorkspace(task.id);
    expect(reset).toEqual({ ok: true });
    expect(await testEnv.SANDBOX_HOMES.head(key)).toBeNull();
    await testEnv.SANDBOX_HOMES.put(key, new Uint8Array([1]));
    await activeRunOf(agentId, task.id);
    expect(await taskObject(testEnv, task.id).resetWorkspace(task.id)).toMatchObject({ ok: false, status: 409, code: "task.run_active" });
    expect(await testEnv.SANDBOX_HOMES.head(key)).not.toBeNull();
  });

  it("TASK-038: a reset sent the moment the run's ending is announced waits for the object to let go of the run, and succeeds", async () => {
    const { task, repositoryId } = await seedTask();
    const key = volumeObjectKey(repositoryId, task.key);
    await testEnv.SANDBOX_HOMES.put(key, new Uint8Array([1]));
    const stub = taskObject(testEnv, task.id);
    const response = await stub.events(task.id, new Request("http://task/events"));
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await stub.start(task.id)).ok).toBe(true);
    let text = "";
    while (!text.includes("event: task.run_ended")) {
      const read = await reader.read();
      if (read.done) throw new Error(`the stream ended without task.run_ended: ${text}`);
      text += read.value;
    }
    expect(await stub.resetWorkspace(task.id)).toEqual({ ok: true });
    expect(await testEnv.SANDBOX_HOMES.head(key)).toBeNull();
    await reader.cancel();
  });

  it("TASK-004: the events stream shows the status, the run starting and ending, and the run's rows, each event fitting its schema", async () => {
    const { task } = await seedTask();
    const stub = taskObject(testEnv, task.id);
    const response = await stub.events(task.id, new Request("http://task/events"));
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reading = readEvents(response, (events) => events.some((e) => e.event === "task.run_ended"));
    // The stream is open (its first status event is on the way) before the run starts.
    await new Promise((r) => setTimeout(r, 200));
    const started = await stub.start(task.id);
    expect(started.ok).toBe(true);
    const events = await reading;
    const names = events.map((e) => e.event);
    expect(events[0]).toEqual({ event: "status", data: { status: "running", run_id: null } });
    expect(names).toContain("task.run_started");
    const runId = events.find((e) => e.event === "task.run_started")!.data.run_id;
    expect(started.ok && started.runId).toBe(runId);
    expect(events.find((e) => e.event === "task.run_ended")!.data).toEqual({ run_id: runId, outcome: "provisioning_failed" });
    expect(events.filter((e) => e.event === "task.status").map((e) => e.data.status)).toEqual(["running", "queued"]);
    // A later subscriber gets the run's rows replayed: the system row and the task prompt.
    const replay = await readEvents(await stub.events(task.id, new Request("http://task/events")), (e) => e.some((x) => x.event === "status"));
    const rows = replay.filter((e) => e.event === "message").map((e) => e.data);
    expect(rows.map((r) => [r.role, r.row_seq, r.run_id])).toEqual([
      ["system", 0, runId],
      ["user", 1, runId],
    ]);
    expect(rows[1].payload.content).toContain("factory/task/APP-1");
    expect(replay.at(-1)).toEqual({ event: "status", data: { status: "queued", run_id: null } });
    expect(eventMisfits([...events, ...replay], EVENT_STREAMS.task)).toEqual([]);
  });

  it("TASK-011 / TASK-014: authorizeGit refuses a wrong credential and a finished run's credential", async () => {
    const { task } = await seedTask();
    const stub = taskObject(testEnv, task.id);
    const { credential, wrong } = await runInDurableObject(stub, async (object: TaskObject) => {
      const started = await object.start(task.id);
      expect(started.ok).toBe(true);
      const inFlight = object.rooms.state.get()!;
      expect(inFlight.credential).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // The run's credential is the one that authorizes; another task's id does not share it.
      expect(object.rooms.state.authorizes(task.id, inFlight.credential)).toBe(true);
      expect(object.rooms.state.authorizes(crypto.randomUUID(), inFlight.credential)).toBe(false);
      // The last character changed to one it is not (an "A" would be the credential itself once in 64 runs).
      const last = inFlight.credential.at(-1) === "A" ? "B" : "A";
      return { credential: inFlight.credential, wrong: await object.authorizeGit(task.id, `${inFlight.credential.slice(0, -1)}${last}`) };
    });
    expect(wrong).toBeNull();
    await untilEnded(task.id);
    await runInDurableObject(stub, async (object: TaskObject) => {
      await object.driver?.done;
    });
    expect(await stub.authorizeGit(task.id, credential)).toBeNull();
    expect(await runInDurableObject(stub, (object: TaskObject) => object.rooms.state.get())).toBeNull();
    const active = await withDb((db) =>
      db
        .select()
        .from(taskRuns)
        .where(and(eq(taskRuns.taskId, task.id), isNull(taskRuns.outcome))),
    );
    expect(active).toHaveLength(0);
  });

  it("TASK-029: a run the object lost (evicted mid-run) ends sandbox_lost at the next call and the task is queued again", async () => {
    const { task, agentId } = await seedTask();
    const { runId, taskRunId } = await activeRunOf(agentId, task.id);
    const stub = taskObject(testEnv, task.id);
    // What an earlier instance left: its run in flight, with no driver in this one.
    await runInDurableObject(stub, (object: TaskObject) => {
      object.rooms.state.begin({ taskRunId, runId, taskId: task.id, credential: "lost", startedAt: Date.now() });
    });
    expect(await stub.authorizeGit(task.id, "lost")).toBeNull();
    const [ended] = await untilEnded(task.id);
    expect(ended).toMatchObject({ outcome: "sandbox_lost", report: expect.objectContaining({ detail: "task.object_restarted" }) });
    const [after] = await withDb((db) => db.select().from(tasks).where(eq(tasks.id, task.id)));
    expect(after).toMatchObject({ status: "queued", autoResumes: 1 });
    const [run] = await withDb((db) => db.select().from(runs).where(eq(runs.id, runId)));
    expect(run!.status).toBe("completed");
  });
});
