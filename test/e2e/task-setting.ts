/**
 * A task's whole setting on a container stack, for the files that run tasks on real boxes:
 * the organisation's task settings, a coding agent with a repository on the local forge
 * reached through a claimed installation, filing a task and waiting on it as the board would.
 */
import { execFileSync } from "node:child_process";
import { expect } from "vitest";
import { admin, claimInstallation } from "../../scripts/forge/test-support";
import { transcript, type WireRow } from "./agents";
import { agentWithSecret, type containerStack } from "./container-stack";
import { until } from "./sandbox-box";

export type Agent = Awaited<ReturnType<typeof agentWithSecret>>;
export type Task = { id: string; key: string; status: string; auto_resumes: number; pull_request: { number: number; url: string } | null };
export type TaskRun = { id: string; run_id: string; outcome: string | null; created_at: string; ended_at: string | null; report: Record<string, unknown> };

/** One model call as the mock model received it. */
export type ModelRequest = { body: { messages: Array<{ role: string; content: unknown }> } };

/** The text of a message's content: a string, or its text parts. */
const contentText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((part: { type?: string; text?: string }) => (part?.type === "text" ? (part.text ?? "") : "")).join("\n")
      : "";
/** The whole prompt of a model call as text, message after message. */
export const promptText = (request: ModelRequest) => request.body.messages.map((m) => `${m.role}: ${contentText(m.content)}`).join("\n");

export const toolOutputs = (rows: WireRow[]) => rows.filter((r) => r.role === "tool").map((r) => String(r.payload.content));
export const shell = (command: string) => ({ name: "shell", arguments: { command } });
export const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8" }).trim();

export function taskSetting(boxes: ReturnType<typeof containerStack>) {
  const { call } = boxes;
  const forge = (method: string, path: string, body?: unknown) => admin(boxes.stack.forge!.adminUrl, method, path, body);

  /** The organisation's task settings for the test that follows (the stack has one organisation). */
  async function settings(values: Record<string, number>) {
    const patched = await call("PATCH", "/api/organisation/task-settings", {
      "runs.maxConcurrent": 4,
      "runs.keepAliveSeconds": 600,
      "runs.maxAutoResumes": 3,
      "runs.retryBaseSeconds": 30,
      ...values,
    });
    expect(patched.status, patched.text).toBe(200);
  }

  /** A coding agent, a private repository on the forge reached through a connected installation, and the guild's repository. */
  async function codingSetup(prefix = "Coder", guildAgent?: Agent, name = "app", files: Record<string, string> = { "README.md": "one\n" }) {
    const agent = guildAgent ?? (await agentWithSecret(call, prefix, { coding: true }));
    const owner = `acme-${crypto.randomUUID().slice(0, 8)}`;
    const fullName = `${owner}/${name}`;
    expect((await forge("POST", "/repos", { full_name: fullName, private: true, files })).status).toBe(201);
    expect((await forge("POST", "/installations", { account: owner, repositories: [fullName] })).status).toBe(201);
    const { connection } = await claimInstallation(call, boxes.stack.forge!.adminUrl, { account: owner });
    expect(connection.status, JSON.stringify(connection.json)).toBe(201);
    const repository = await call("POST", `/api/guilds/${agent.guildId}/repositories`, { full_name: fullName, connection_id: connection.json.id });
    expect(repository.status, repository.text).toBe(201);
    return { agent, fullName, owner, repositoryId: repository.json.id as string };
  }

  async function fileTask(setup: { agent: Agent; repositoryId: string }, title: string): Promise<Task> {
    const filed = await call("POST", `/api/guilds/${setup.agent.guildId}/tasks`, {
      title,
      description: `${title}, please.`,
      agent_id: setup.agent.agentId,
      repository_id: setup.repositoryId,
    });
    expect(filed.status, filed.text).toBe(201);
    return filed.json as Task;
  }

  const readTask = async (id: string) => (await call("GET", `/api/tasks/${id}`)).json as Task;
  const taskRuns = async (id: string) => ((await call("GET", `/api/tasks/${id}/runs?limit=50`)).json.data as TaskRun[]).reverse();

  /** Waits until the task's status is one of `statuses` (what the board would show), and answers the task. */
  async function taskReaches(id: string, statuses: string[], timeoutMs = 240_000): Promise<Task> {
    let task = await readTask(id);
    await until(`task ${id} to become ${statuses.join(" or ")}`, async () => statuses.includes((task = await readTask(id)).status), timeoutMs);
    return task;
  }

  /** Waits until the task's active run has committed `rows` rows, or ended. */
  async function runHasRows(runId: string, check: (rows: WireRow[]) => boolean, timeoutMs = 180_000): Promise<WireRow[]> {
    let rows: WireRow[] = [];
    await until(`run ${runId} to show the awaited rows`, async () => check((rows = await transcript(runId, boxes.target))), timeoutMs);
    return rows;
  }

  /** The model calls the mock model received for `model`, oldest first. */
  async function modelRequests(model: string): Promise<ModelRequest[]> {
    const res = await fetch(`${boxes.target.mockUrl}/__requests?model=${encodeURIComponent(model)}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { requests: ModelRequest[] }).requests;
  }
  const requestCount = async (model: string) =>
    ((await (await fetch(`${boxes.target.mockUrl}/__requests/count?model=${encodeURIComponent(model)}`)).json()) as { count: number }).count;

  /** Waits until the mock model has received call number `index` (from 0) for `model`, and answers it. */
  async function modelRequest(model: string, index: number, timeoutMs = 240_000): Promise<ModelRequest> {
    await until(`model call ${index} of ${model}`, async () => (await requestCount(model)) > index, timeoutMs);
    return (await modelRequests(model))[index]!;
  }
  return { forge, settings, codingSetup, fileTask, readTask, taskRuns, taskReaches, runHasRows, modelRequests, requestCount, modelRequest };
}
