import type { Env } from "../bindings/env";

// The Container classes route their boxes' intercepted requests (the home saved on exit) through it.
export { ContainerProxy } from "@cloudflare/containers";
export { AgentObject } from "../durable-objects/agent/agent-object";
export { ForgeInboxObject } from "../durable-objects/forge/inbox-object";
export { GuildObject } from "../durable-objects/guild/guild-object";
export { LiteSandbox, StandardSandbox } from "../durable-objects/sandbox/sandbox-container";
export { WarmPoolObject } from "../durable-objects/sandbox/warm-pool";

import { warmPoolsOnce } from "../durable-objects/sandbox/warm-pool";

export { TaskQueueObject } from "../durable-objects/task/queue-object";
export { TaskObject } from "../durable-objects/task/task-object";

/**
 * The API (its routes, their schemas and the OpenAPI document) is evaluated on the first
 * request, not when the isolate starts: a start that serves an object, or only the
 * console's assets, never pays for it.
 */
export default {
  async fetch(request, env, ctx) {
    warmPoolsOnce(env, ctx);
    const { app } = await import("./app");
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
