/**
 * What the git gateway (durable-objects/sandbox/git-gateway.ts) asks of a task's object over
 * RPC, typed here so the sandbox room and the task room share the shapes without importing
 * each other: `authorizeGit(taskId, credential)` → the grant for the active run's credential
 * or null, and `gitRefused(taskId, event)` when a push of the task's box was refused.
 */
export type { GatewayGrant as GitGrant, GitRefusalEvent } from "../core/git-gateway/handler";
