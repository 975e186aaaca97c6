import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { agents } from "../../core/db/schema";
import { SandboxError } from "../../core/sandbox/errors";
import { newAgent, objectOf } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";
import type { AgentObject } from "../agent/agent-object";
import { NO_ENGINE } from "./lifecycle";

/**
 * The tests' workerd runs without a container engine, as a laptop without Docker does:
 * every path into a sandbox must answer a clear sandbox.unavailable, never fail otherwise.
 */
describe("sandboxes without a container engine", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  async function setWorkspace(agentId: string, workspaceMib: number | null, maxWorkspaceMib: number) {
    const { db, close } = openDatabase(env);
    try {
      await db.update(agents).set({ workspaceMib, maxWorkspaceMib }).where(eq(agents.id, agentId));
    } finally {
      await close();
    }
  }

  /** The generation-start step of a run offering a sandbox tool, as the run loop calls it. */
  function generationStart(agentId: string) {
    return runInDurableObject(objectOf(agentId), async (agent: AgentObject) => {
      const { db, close } = openDatabase(env);
      try {
        const started = await agent.rooms.context.box.generationStarting(
          { agentId, flags: { browser: false, coding: true }, browserLanguage: "en-US", secrets: [], secretIds: [] },
          db,
        );
        if (!started.ok) return { ok: false as const, code: started.code, message: started.message };
        const exec = await started.access.exec({ command: "true" }).then(
          () => null,
          (error: unknown) => ({ isSandboxError: error instanceof SandboxError, code: (error as SandboxError).code, message: (error as Error).message }),
        );
        return { ok: true as const, exec };
      } finally {
        await close();
      }
    });
  }

  it("SBX-023: the CLI tab answers sandbox.unavailable saying why, and the state shows it", async () => {
    const agent = await newAgent(token, guildId, { coding: true });
    const target = await objectOf(agent.id).sandboxForView("cli");
    expect(target).toEqual({ ok: false, code: "sandbox.unavailable", message: NO_ENGINE });
    const state = await objectOf(agent.id).sandboxState();
    expect(state).toMatchObject({ status: "unavailable", reason: NO_ENGINE });
  });

  it("SBX-002: the Browser tab of an agent without browser access is refused before any box starts", async () => {
    const agent = await newAgent(token, guildId);
    expect(await objectOf(agent.id).sandboxForView("browser")).toMatchObject({ ok: false, code: "sandbox.no_browser" });
    expect(await objectOf(agent.id).sandboxState()).toEqual({ box: null, status: "none", saved_home: null });
  });

  it("SBX-009: a run's sandbox tools answer sandbox.unavailable; the generation itself starts", async () => {
    const agent = await newAgent(token, guildId, { coding: true });
    const started = await generationStart(agent.id);
    expect(started).toEqual({ ok: true, exec: { isSandboxError: true, code: "sandbox.unavailable", message: NO_ENGINE } });
  });

  it("SBX-040: a stored workspace above min(max_workspace_mib, WORKSPACE_MAX_MIB) fails the generation start with workspace.full", async () => {
    const agent = await newAgent(token, guildId, { coding: true });
    await setWorkspace(agent.id, 300, 200);
    const full = await generationStart(agent.id);
    expect(full).toMatchObject({ ok: false, code: "workspace.full" });
    expect(full.ok === false && full.message).toContain("300 MiB, above its limit of 200 MiB");
    // The host's limit (2048) applies when the agent's is larger.
    await setWorkspace(agent.id, 3000, 100_000);
    expect(await generationStart(agent.id)).toMatchObject({ ok: false, code: "workspace.full" });
    await setWorkspace(agent.id, 150, 200);
    expect(await generationStart(agent.id)).toMatchObject({ ok: true });
  });

  it("SBX-022: toggling coding on an agent without a box answers as usual", async () => {
    const agent = await newAgent(token, guildId);
    const patched = await call("PATCH", `/api/agents/${agent.id}`, { token, body: { coding: true } });
    expect(patched.status).toBe(200);
    expect(patched.json.coding).toBe(true);
    expect(await objectOf(agent.id).sandboxState()).toEqual({ box: null, status: "none", saved_home: null });
  });
});
