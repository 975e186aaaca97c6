/**
 * The forge a task run opens and finishes its pull request on (TASK-018, TASK-024): core/github's
 * ForgePlugin acting with an installation token minted for the task's repository alone.
 */
import type { Env } from "../../bindings/env";
import { forgePlugin, githubApp } from "../../bindings/github";
import type { TaskForRun } from "../../core/db/task-run";
import type { ForgePlugin } from "../../core/github/forge-plugin";
/** A short-lived installation token for the task's repository, minted again when near its expiry. */
export class RepositoryTokens {
  #cached: { token: string; expiresAt: number; installationId: number; fullName: string } | null = null;

  constructor(
    private readonly env: Env,
    private readonly now: () => number,
  ) {}

  /** The token, or null for a repository without a connected installation (or no App configured). */
  async token(task: Pick<TaskForRun, "installationId" | "fullName">): Promise<string | null> {
    if (task.installationId === null) return null;
    const cached = this.#cached;
    if (cached && cached.installationId === task.installationId && cached.fullName === task.fullName && cached.expiresAt - this.now() > 10 * 60_000) {
      return cached.token;
    }
    const app = githubApp(this.env);
    if (!app) return null;
    const minted = await app.mintRepositoryToken(task.installationId, task.fullName);
    this.#cached = { token: minted.token, expiresAt: Date.parse(minted.expires_at), installationId: task.installationId, fullName: task.fullName };
    return minted.token;
  }

  /** The forge for the task's repository, or null when it has no token (no connection, no App). */
  async forge(task: Pick<TaskForRun, "installationId" | "fullName">): Promise<ForgePlugin | null> {
    const token = await this.token(task);
    return token ? forgePlugin(this.env, token) : null;
  }
}
