/**
 * The forge a task run opens and finishes its pull request on (TASK-018, TASK-024). The
 * shape is core/github's ForgePlugin; the task object is given a way to build one for a
 * repository's installation token, so the run never depends on which forge it is.
 */
import type { Env } from "../../bindings/env";
import { githubApp } from "../../bindings/github";
import type { TaskForRun } from "../../core/db/task-runs";

export interface ForgePlugin {
  openDraftPR(input: { fullName: string; head: string; base: string; title: string; body: string }): Promise<{ number: number; url: string }>;
  markReady(input: { fullName: string; number: number }): Promise<void>;
  comment(input: { fullName: string; number: number; body: string }): Promise<void>;
}

/** Builds the forge plugin for an installation token; null where no forge is wired in. */
export type ForgeFactory = (options: { apiUrl: string; token: string }) => ForgePlugin | null;

/** Until a forge is wired in, a run pushes its branch and opens no pull request. */
export const NO_FORGE: ForgeFactory = () => null;

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
    const minted = await app.mintToken(task.installationId, [task.fullName.split("/")[1] ?? task.fullName]);
    this.#cached = { token: minted.token, expiresAt: Date.parse(minted.expires_at), installationId: task.installationId, fullName: task.fullName };
    return minted.token;
  }

  /** The forge for the task's repository, or null when it has no token or no forge is wired in. */
  async forge(factory: ForgeFactory, task: Pick<TaskForRun, "installationId" | "fullName">): Promise<ForgePlugin | null> {
    const token = await this.token(task);
    return token ? factory({ apiUrl: this.env.GITHUB_API_URL || "https://api.github.com", token }) : null;
  }
}
