/**
 * The guilds-code commands a task run gives its box (TASK-010, TASK-017, TASK-022): prepare
 * the workspace, push after a turn, finalize with a WIP snapshot. Every git command runs in
 * the box, through the gateway; the object only reads their JSON answers.
 */

import { guildsCodeCommand, lastJson } from "../../core/repos/guilds-code";
import { GIT_TOKENS_PATH } from "../../core/repos/types";
import { gatewayRemote, gatewayTokensFile } from "../../core/tasks/credential";
import { taskBranch, wipBranch } from "../../core/tasks/key";
import { TASK_WORKSPACE } from "../../core/tasks/prompt";
import type { SandboxAccess } from "../../core/tools/types";

const STEP_TIMEOUT_MS = 600_000;

export interface Prepared {
  head: string | null;
  created: boolean;
  wip_applied: boolean;
  sanitized: string[];
  /** The workspace was cloned anew; or it was the repository's seed, fetched into (decision 0037). Absent from an older image. */
  cloned?: boolean;
  seeded?: boolean;
  /** Where the box's preparation spent its time (guilds-code task-prepare); absent from an older image. */
  timings?: Record<string, number>;
}

export interface Pushed {
  pushed: boolean;
  head: string | null;
  ahead: number;
  refused?: unknown;
}

export interface Finalized {
  pushed: boolean;
  head: string | null;
  ahead: number;
  wip: { sha: string; files: number } | null;
  dirty: boolean;
}

export type Answer<T> = { ok: true; value: T } | { ok: false; message: string };

export interface TaskBoxTarget {
  taskId: string;
  /** The agent's git identity, written to the workspace's configuration by task-prepare. */
  identity: { name: string; email: string };
  /** Where the box's git finds the gateway (core/tasks/credential.ts GATEWAY_BASE, or the platform's GIT_GATEWAY_URL). */
  gatewayBase?: string;
  key: string;
  fullName: string;
  baseBranch: string;
}

/** The commands of one task's box. */
export class TaskBoxCommands {
  constructor(
    private readonly access: SandboxAccess,
    private readonly target: TaskBoxTarget,
  ) {}

  /** The run's credential for the gateway URL, the only entry of the box's tokens file (TASK-011). */
  async writeCredential(credential: string, expiresAt: Date): Promise<void> {
    await this.access.files.put(
      GIT_TOKENS_PATH,
      gatewayTokensFile(this.target.taskId, this.target.fullName, credential, expiresAt.toISOString(), this.target.gatewayBase),
    );
  }

  prepare(): Promise<Answer<Prepared>> {
    const { taskId, key, fullName, baseBranch } = this.target;
    return this.run<Prepared>("task-prepare", {
      dir: TASK_WORKSPACE,
      remote: gatewayRemote(taskId, fullName, this.target.gatewayBase),
      branch: taskBranch(key),
      base: baseBranch,
      wip: wipBranch(key),
      name: this.target.identity.name,
      email: this.target.identity.email,
    });
  }

  push(): Promise<Answer<Pushed>> {
    return this.run<Pushed>("task-push", { dir: TASK_WORKSPACE, branch: taskBranch(this.target.key), base: this.target.baseBranch });
  }

  finalize(): Promise<Answer<Finalized>> {
    return this.run<Finalized>("task-finalize", {
      dir: TASK_WORKSPACE,
      branch: taskBranch(this.target.key),
      base: this.target.baseBranch,
      wip: wipBranch(this.target.key),
    });
  }

  private async run<T>(subcommand: string, flags: Record<string, string>): Promise<Answer<T>> {
    const ran = await this.access.exec({ command: guildsCodeCommand(subcommand, flags), cwd: "/data", timeoutMs: STEP_TIMEOUT_MS });
    const answer = lastJson(ran.output);
    if (ran.exitCode !== 0 || !answer || typeof answer !== "object") {
      return { ok: false, message: `guilds-code ${subcommand} exited with ${ran.exitCode}: ${ran.output.slice(-500)}` };
    }
    return { ok: true, value: answer as T };
  }
}
