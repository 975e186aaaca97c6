import { exports } from "cloudflare:workers";
import { beforeAll } from "vitest";

/**
 * Loads the Worker under test and its objects' modules before a file's first test. workerd
 * loads them on first use (the app on the first request, each object's rooms on its first
 * call); on a loaded machine that took 20 s and more, inside whichever test came first and
 * against its test timeout. In a hook it counts against the hook's longer timeout, and the
 * next file in the same workerd finds them loaded (the workers project keeps a workerd from
 * file to file).
 */
beforeAll(async () => {
  const answer = await (exports as unknown as { default: Fetcher }).default.fetch("http://api.test/api/health");
  await answer.arrayBuffer();
  await Promise.all([
    import("../../durable-objects/agent/rooms"),
    import("../../durable-objects/task/task-control"),
    import("../../durable-objects/task/queue"),
    import("../../durable-objects/forge/inbox"),
    import("../../durable-objects/guild/guild-chat"),
  ]);
});
