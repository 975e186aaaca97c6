import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import type { AgentObject } from "../../durable-objects/agent/agent-object";

/**
 * A fixed point far in the future: every test time is T0 + something, so no alarm the
 * tests arm ever comes due on the real clock and fires on its own; only
 * `runDurableObjectAlarm` runs them, and the injected clock decides what is due.
 */
export const T0 = Date.UTC(2100, 0, 1);

export const agents = (env as unknown as Env).AGENT;

/** A fresh agent object per test: no shared storage between tests. */
export function freshAgent(): DurableObjectStub<AgentObject> {
  return agents.get(agents.idFromName(`test-agent-${crypto.randomUUID()}`));
}

/** Sets the object's injected clock to `ms`. */
export async function setClock(stub: DurableObjectStub<AgentObject>, ms: number): Promise<void> {
  await runInDurableObject(stub, (agent: AgentObject) => {
    agent.now = () => ms;
  });
}

/** The time the object's one alarm is armed at, or null. */
export async function armedAt(stub: DurableObjectStub<AgentObject>): Promise<number | null> {
  return runInDurableObject(stub, (_agent: AgentObject, state) => state.storage.getAlarm());
}

export const iso = (ms: number) => new Date(ms).toISOString();
