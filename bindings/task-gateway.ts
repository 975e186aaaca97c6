/**
 * What the git gateway (durable-objects/sandbox/git-gateway.ts) and a task's object say to
 * each other over RPC (TASK-011, TASK-014), typed here so the sandbox room and the task room
 * share the shapes without importing each other: `authorizeGit(taskId, credential)` answers
 * the grant for the active run's credential (the installation token the gateway forwards
 * with, which never enters the box) or null; `gitRefused(taskId, event)` reports a refused push.
 */
export type { GatewayGrant as GitAuthorization, GitRefusalEvent } from "../core/git-gateway/handler";
