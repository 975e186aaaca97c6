/**
 * What the git gateway and a task's object say to each other over RPC (TASK-011, TASK-014):
 * the gateway asks whether a box's credential is its task run's, and gets what it needs to
 * forward (the installation token never enters the box); it reports each refused push.
 */

/** A task run's git, as the gateway may forward it. */
export interface GitAuthorization {
  /** The repository's `owner/name`. */
  fullName: string;
  baseBranch: string;
  taskKey: string;
  allowForcePush: boolean;
  /** The installation token the gateway forwards with; empty for a repository without a connection. */
  token: string;
}

/** A push the gateway refused, as the task run's transcript and report show it. */
export interface GitRefusal {
  ref: string;
  reason: string;
  /** ISO-8601. */
  at: string;
}
