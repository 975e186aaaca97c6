import { runInDurableObject } from "cloudflare:test";
import { taskObject } from "../../bindings/objects";
import type { TaskObject } from "../../durable-objects/task/task-object";
import { testEnv } from "./tasks";

/**
 * A stand-in for a task's box (the Workers pool runs no containers): the task object's box
 * comes up at once, and each guilds-code command answers as the real one does for a
 * workspace one commit ahead of its base. `ran` lists the guilds-code subcommands in order
 * (task-prepare, task-push after each turn, task-finalize at the end), so a test sees that a
 * run pushed its work and kept its WIP. Everything else of the run is real.
 */
export async function standInTaskBox(taskId: string): Promise<{ ran: string[] }> {
  const ran: string[] = [];
  const answers: Record<string, unknown> = {
    "task-prepare": { head: "1111111", created: true, wip_applied: false, sanitized: [] },
    "task-push": { pushed: true, head: "2222222", ahead: 1 },
    "task-finalize": { pushed: true, head: "2222222", ahead: 1, wip: { sha: "3333333", files: 1 }, dirty: false },
  };
  const exec = async (input: { command: string }) => {
    const subcommand = /guilds-code (\S+)/.exec(input.command)?.[1];
    if (subcommand) ran.push(subcommand);
    const answer = subcommand ? answers[subcommand] : undefined;
    return { exitCode: 0, output: answer ? JSON.stringify(answer) : "", timedOut: false, killed: false, truncated: false, durationMs: 1 };
  };
  const access = {
    exec,
    browser: async () => ({ text: "" }),
    files: { put: async () => {}, get: async () => null, list: async () => [], delete: async () => {} },
  };
  await runInDurableObject(taskObject(testEnv, taskId), (object: TaskObject) => {
    const box = object.rooms.context.box;
    box.generationStarting = async () => ({ ok: true, up: true, pristine: false, access: access as never });
    box.generationEnded = async () => {};
    box.release = async () => ({ savedBytes: 0 });
  });
  return { ran };
}
