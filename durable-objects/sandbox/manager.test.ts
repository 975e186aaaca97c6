import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import type { Database } from "../../core/db/client";
import { freshAgent, T0 } from "../../test/workerd/agent-object";
import type { AgentObject } from "../agent/agent-object";
import { DeadlineMultiplexer } from "../common/deadlines";
import { homeKey } from "./home";
import type { EnsureRequest } from "./inputs";
import { SANDBOX_IDLE, SandboxManager } from "./manager";

/**
 * The manager's save rules against a stand-in box (the Workers pool runs no containers): a
 * Container stub that boots, answers the guest's routes and streams a home of a chosen
 * size, over the object's real storage, deadlines and R2.
 */
const bindings = env as unknown as Env;
const MiB = 1_048_576;

/** One agent's stand-in box: whether it runs, how often it was destroyed, the home it holds. */
function standInBox() {
  const box = { running: false, destroyed: 0, homeBytes: 1000, booted: Promise.resolve(), bootCalled: 0 };
  const guest = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const route = `${request.method} ${url.pathname}`;
    if (route === "GET /health") return Response.json({ ok: true });
    if (route === "PUT /home/archive") {
      await request.arrayBuffer();
      return Response.json({ bytes: 0, files: 0 });
    }
    if (route === "GET /home/archive") {
      let left = box.homeBytes;
      return new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (left <= 0) return controller.close();
            const size = Math.min(left, 256 * 1024);
            controller.enqueue(new Uint8Array(size));
            left -= size;
          },
        }),
      );
    }
    return Response.json({});
  };
  const stub = {
    isRunning: async () => box.running,
    boot: async () => {
      box.bootCalled++;
      await box.booted;
      box.running = true;
    },
    destroyBox: async () => {
      if (box.running) box.destroyed++;
      box.running = false;
    },
    fetch: (request: Request) => guest(request),
  };
  const namespace = { idFromName: (name: string) => ({ toString: () => name }), get: () => stub };
  return { box, namespace };
}

/** A manager over a fresh agent object's storage with the stand-in box; `setCapMib` sets the agent's max_workspace_mib. */
async function withManager(
  test: (m: {
    manager: SandboxManager;
    box: ReturnType<typeof standInBox>["box"];
    agentId: string;
    setCapMib: (mib: number) => void;
    settle: () => Promise<void>;
    multiplexer: DeadlineMultiplexer;
    now: { ms: number };
  }) => Promise<void>,
) {
  await runInDurableObject(freshAgent(), async (_agent: AgentObject, state) => {
    const { box, namespace } = standInBox();
    const fakeEnv = {
      ...bindings,
      SANDBOX_LITE: namespace,
      SANDBOX_STANDARD: namespace,
      SANDBOX_UNAVAILABLE_REASON: undefined,
      WORKSPACE_MAX_MIB: "2048",
    } as unknown as Env;
    // The agent's row as readWorkspace reads it: only max_workspace_mib matters here.
    const agentRow = { workspaceMib: null, maxWorkspaceMib: 2048 };
    const db = { select: () => ({ from: () => ({ where: () => ({ limit: async () => [{ ...agentRow }] }) }) }) } as unknown as Database;
    const now = { ms: T0 };
    const multiplexer = new DeadlineMultiplexer(state.storage, () => now.ms);
    const pending: Promise<unknown>[] = [];
    const manager = new SandboxManager({
      env: fakeEnv,
      sql: state.storage.sql,
      multiplexer,
      now: () => now.ms,
      generating: () => false,
      waitUntil: (work) => pending.push(work),
      database: { use: (work) => work(db) },
    });
    const settle = async () => {
      await Promise.all(pending.splice(0));
    };
    await test({
      manager,
      box,
      agentId: crypto.randomUUID(),
      setCapMib: (mib) => {
        agentRow.maxWorkspaceMib = mib;
      },
      settle,
      multiplexer,
      now,
    });
  });
}

const request = (agentId: string): EnsureRequest => ({
  agentId,
  flags: { browser: false, coding: true },
  browserLanguage: "en-US",
  secrets: [],
  secretIds: [],
});

/** Fires the idle deadline as the multiplexer would. */
async function fireIdle(manager: SandboxManager, multiplexer: DeadlineMultiplexer, settle: () => Promise<void>) {
  const entry = multiplexer.get(SANDBOX_IDLE);
  expect(entry).not.toBeNull();
  manager.handlers()[SANDBOX_IDLE](entry!);
  await settle();
}

describe("the sandbox manager's saves", () => {
  it("SBX-036 / SEC-009: a secret change whose save fails keeps the box, shows sandbox.home_save_failed, retries with a growing delay, and destroys it once a save succeeds", async () => {
    await withManager(async ({ manager, box, agentId, setCapMib, settle, multiplexer, now }) => {
      expect(await manager.forCommand(request(agentId))).toMatchObject({ ok: true });
      box.homeBytes = 2 * MiB;
      setCapMib(1);

      expect(await manager.secretsChanged()).toEqual({ destroyed: false, deferred: false });
      expect(box).toMatchObject({ running: true, destroyed: 0 });
      expect(await bindings.SANDBOX_HOMES.head(homeKey(agentId))).toBeNull();
      const failed = await manager.state(agentId);
      expect(failed.home_save_error).toMatchObject({ code: "sandbox.home_save_failed", cause: "workspace.full", attempts: 1 });
      expect(multiplexer.get(SANDBOX_IDLE)?.dueAt).toBe(now.ms + 1_000);

      // The retry fails again: the box stays, the next try is later.
      await fireIdle(manager, multiplexer, settle);
      expect(box).toMatchObject({ running: true, destroyed: 0 });
      expect((await manager.state(agentId)).home_save_error?.attempts).toBe(2);
      expect(multiplexer.get(SANDBOX_IDLE)?.dueAt).toBe(now.ms + 2_000);

      // The limit raised (read fresh at each save): the next retry saves, then destroys.
      setCapMib(64);
      await fireIdle(manager, multiplexer, settle);
      expect(box).toMatchObject({ running: false, destroyed: 1 });
      expect((await bindings.SANDBOX_HOMES.head(homeKey(agentId)))?.size).toBe(2 * MiB);
      const saved = await manager.state(agentId);
      expect(saved.home_save_error).toBeUndefined();
      expect(saved).toMatchObject({ status: "none", saved_home: { bytes: 2 * MiB } });
      expect(multiplexer.get(SANDBOX_IDLE)).toBeNull();
    });
  });

  it("SBX-031: an idle box whose save keeps failing is never destroyed without it", async () => {
    await withManager(async ({ manager, box, agentId, setCapMib, settle, multiplexer }) => {
      expect(await manager.forCommand(request(agentId))).toMatchObject({ ok: true });
      box.homeBytes = 2 * MiB;
      setCapMib(1);
      for (let attempt = 1; attempt <= 5; attempt++) {
        await fireIdle(manager, multiplexer, settle);
        expect(box, `attempt ${attempt}`).toMatchObject({ running: true, destroyed: 0 });
      }
      expect((await manager.state(agentId)).home_save_error?.attempts).toBe(5);
    });
  });

  it("SBX-005: Reset home destroys the box without a save and deletes the saved home", async () => {
    await withManager(async ({ manager, box, agentId, setCapMib }) => {
      await bindings.SANDBOX_HOMES.put(homeKey(agentId), new Uint8Array(10));
      expect(await manager.forCommand(request(agentId))).toMatchObject({ ok: true });
      box.homeBytes = 2 * MiB;
      setCapMib(1);
      await manager.secretsChanged();
      expect(await manager.resetHome(agentId)).toEqual({ ok: true, destroyed: true });
      expect(box).toMatchObject({ running: false, destroyed: 1 });
      expect(await bindings.SANDBOX_HOMES.head(homeKey(agentId))).toBeNull();
      expect(await manager.state(agentId)).toEqual({ box: "standard", status: "none", saved_home: null });
    });
  });

  it("SBX-005: an agent deleted while its box starts: the start tears its box down and no home is left", async () => {
    await withManager(async ({ manager, box, agentId }) => {
      await bindings.SANDBOX_HOMES.put(homeKey(agentId), new Uint8Array(10));
      let boot!: () => void;
      box.booted = new Promise((resolve) => {
        boot = resolve;
      });
      const starting = manager.forCommand(request(agentId));
      while (box.bootCalled === 0) await new Promise((r) => setTimeout(r, 5));
      const forgetting = manager.forget(agentId);
      boot();
      expect(await starting).toMatchObject({ ok: false, code: "agent.not_found" });
      await forgetting;
      expect(box.running).toBe(false);
      expect(manager.running()).toBe(false);
      expect(await bindings.SANDBOX_HOMES.head(homeKey(agentId))).toBeNull();
      // Nothing brings a box up for it again.
      expect(await manager.forCommand(request(agentId))).toMatchObject({ ok: false, code: "agent.not_found" });
    });
  });
});
