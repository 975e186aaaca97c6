import type { OutboundHandlerContext } from "@cloudflare/containers";
import { Container } from "@cloudflare/containers";
import type { Env } from "../../bindings/env";
import type { Box } from "../../core/sandbox/metadata";
import { GATEWAY_HOST, MODEL_GATEWAY_HOST } from "../../core/tasks/credential";
import { HOME_SAVE_HOST, saveHomeOnExit } from "./home-on-exit";

/** The guest's port in both images (containers/README.md). */
export const GUEST_PORT = 8080;

/**
 * The one variable the guest's settings travel in (containers/guest/config.ts): the box's
 * entrypoint writes it to a root-only file and removes it, so the guest never takes a
 * setting from the environment, which holds the agent's secrets.
 */
export const GUEST_CONFIG = "GUEST_CONFIG";

/** The storage key of the box's holder (see claim). */
const HOLDER_KEY = "guilds:holder";

/** Container states in which no request may reach (or restart) the box. */
const STOPPED = new Set(["stopping", "stopped", "stopped_with_code"]);

/** Settings of the guest, named as containers/README.md lists them, e.g. GUEST_TOKEN. */
export type GuestSettings = Record<`GUEST_${string}`, string>;

/**
 * One agent's machine: a Container whose object is addressed by the agent id. The agent
 * object decides when it starts and ends (SBX-001..043); this class only starts it with
 * the environment it is given, answers whether it runs, and destroys it.
 *
 * `sleepAfter` is a backstop, not the idle rule: the class renews its activity on every
 * proxied message, so the agent object destroys idle boxes itself (SBX-031), and this
 * only stops a box the agent object lost track of.
 */
abstract class SandboxContainer extends Container<Env> {
  override defaultPort = GUEST_PORT;
  override sleepAfter = "2h";

  /**
   * Starts the box with this environment and the guest's settings unless one runs, and
   * waits until the guest's port answers. The environment replaces the class's defaults
   * (secret values included), so it never lives in a property of this object. The
   * settings go last, in GUEST_CONFIG, so no variable of the environment can stand in for them.
   */
  async boot(environment: Record<string, string>, settings: GuestSettings, labels: Record<string, string>): Promise<void> {
    const envVars = { ...environment, [GUEST_CONFIG]: JSON.stringify(settings) };
    await this.startAndWaitForPorts({
      startOptions: { envVars, labels },
      ports: [GUEST_PORT],
      cancellationOptions: { instanceGetTimeoutMS: 30_000, portReadyTimeoutMS: 60_000 },
    });
  }

  /**
   * Only a running box is reached. Container's own fetch starts a stopped box with the class's
   * default environment: no secrets, no restored home, a guest without its token. A late view
   * request or a retried call must not bring such a box up; the agent object's ensure does.
   */
  override async fetch(request: Request): Promise<Response> {
    // A box that was told to stop (SIGTERM from the engine, a crash) may still count as running
    // for a moment: Container's fetch would start it again then, and wait minutes for ports.
    if (!this.ctx.container?.running || STOPPED.has((await this.getState()).status)) {
      return Response.json(
        { error: { code: "sandbox.not_running", message: "The agent's sandbox is not running; opening a view or a generation starts it" } },
        { status: 503 },
      );
    }
    return super.fetch(request);
  }

  /**
   * Takes this box for `holder` (an agent id, or `task:<id>`) once and for ever: a box from the
   * warm pool is started before anyone holds it, and the gateways and the home save ask it who
   * does (holder.ts). A second claim, by anyone, is refused, so a box that held a tenant never
   * serves another. Storage calls hold the object's input gate, so two claims cannot interleave.
   */
  async claim(holder: string): Promise<boolean> {
    if ((await this.ctx.storage.get<string>(HOLDER_KEY)) !== undefined) return false;
    await this.ctx.storage.put(HOLDER_KEY, holder);
    return true;
  }

  /** Who claimed this box; null for a box never claimed (a warm one, or one started under its holder's name). */
  async holder(): Promise<string | null> {
    return (await this.ctx.storage.get<string>(HOLDER_KEY)) ?? null;
  }

  /** Whether a container runs now (the runtime's view, not the stored state). */
  isRunning(): boolean {
    return this.ctx.container?.running ?? false;
  }

  /** Kills the box (SIGKILL); its disk goes with it, the saved home stays in R2. */
  async destroyBox(): Promise<void> {
    if (this.ctx.container?.running) await this.destroy();
  }
}

/**
 * The Container object named `name` in the box's class: a holder's own box (the agent's id,
 * `task:<id>`) or a warm one (`warm:<box>:<uuid>`).
 *
 * @example boxContainer(env, "lite", agentId).isRunning()
 */
export function boxContainer(env: Env, box: Box, name: string): DurableObjectStub<LiteSandbox> {
  const namespace = box === "lite" ? env.SANDBOX_LITE : env.SANDBOX_STANDARD;
  return namespace.get(namespace.idFromName(name)) as DurableObjectStub<LiteSandbox>;
}

// Assigned in static blocks, not declared as static fields: the base class's static setter
// registers the handlers under the class's own name, which a field would shadow.

/** The lite box (SBX-003): neither browser nor coding. */
export class LiteSandbox extends SandboxContainer {
  static {
    LiteSandbox.outboundByHost = { [HOME_SAVE_HOST]: saveHomeOnExit };
  }
}

/** The standard box (SBX-004): browser or coding; a task's box, whose git goes through the gateway. */
export class StandardSandbox extends SandboxContainer {
  static {
    StandardSandbox.outboundByHost = { [HOME_SAVE_HOST]: saveHomeOnExit, [GATEWAY_HOST]: gitGatewayOnDemand, [MODEL_GATEWAY_HOST]: modelGatewayOnDemand };
  }
}

/** The git gateway (git-gateway.ts, with its pack reader) is imported by the first request for it, not when an isolate starts. */
async function gitGatewayOnDemand(request: Request, env: Env, ctx: OutboundHandlerContext): Promise<Response> {
  const { gitGateway } = await import("./git-gateway");
  return gitGateway(request, env, ctx);
}

/** The model gateway, likewise imported by the first call for it. */
async function modelGatewayOnDemand(request: Request, env: Env, ctx: OutboundHandlerContext): Promise<Response> {
  const { modelGateway } = await import("./model-gateway");
  return modelGateway(request, env, ctx);
}
