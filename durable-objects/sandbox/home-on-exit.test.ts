import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { homeKey } from "./home";
import { HOME_SAVE_HOST, homeSaveUrl, saveHomeOnExit } from "./home-on-exit";

const bindings = env as unknown as Env;

/** What the box sends on SIGTERM, as the Container's outbound handler receives it. */
const put = (agentId: string, body: string) => new Request(homeSaveUrl(agentId), { method: "PUT", body, headers: { "content-type": "application/zstd" } });

describe("the home saved by a box that is stopped", () => {
  it("SBX-036: a box's archive on SIGTERM is stored as its agent's home", async () => {
    const agentId = crypto.randomUUID();
    expect(new URL(homeSaveUrl(agentId)).host).toBe(HOME_SAVE_HOST);
    const containerId = bindings.SANDBOX_STANDARD.idFromName(agentId).toString();
    const answer = await saveHomeOnExit(put(agentId, "archive-bytes"), bindings, { containerId, className: "StandardSandbox" });
    expect(answer.status).toBe(204);
    expect(await (await bindings.SANDBOX_HOMES.get(homeKey(agentId)))?.text()).toBe("archive-bytes");
  });

  it("SBX-034: a box cannot write another agent's home", async () => {
    const victim = crypto.randomUUID();
    const attacker = crypto.randomUUID();
    const containerId = bindings.SANDBOX_LITE.idFromName(attacker).toString();
    const answer = await saveHomeOnExit(put(victim, "overwrite"), bindings, { containerId, className: "LiteSandbox" });
    expect(answer.status).toBe(403);
    // The other class's object of the same agent is another box too.
    const otherClass = await saveHomeOnExit(put(attacker, "x"), bindings, { containerId, className: "StandardSandbox" });
    expect(otherClass.status).toBe(403);
    expect(await bindings.SANDBOX_HOMES.head(homeKey(victim))).toBeNull();
    expect(await bindings.SANDBOX_HOMES.head(homeKey(attacker))).toBeNull();
    const wrongMethod = await saveHomeOnExit(new Request(homeSaveUrl(attacker)), bindings, { containerId, className: "LiteSandbox" });
    expect(wrongMethod.status).toBe(404);
  });
});
