/**
 * The agent's box as one generation holds it (GEN-007, SCRIPT-023): ensured at the start
 * when the run offers shell or the browser tools, or at first use when its only box tools
 * are scripts; once up, its scripts folder is materialised from the run's snapshot.
 */
import { SandboxError } from "../../../../core/tools/sandbox-error";
import type { SandboxAccess } from "../../../../core/tools/types";
import { lazySandboxAccess } from "../../../sandbox/access";
import type { GenerationSandbox } from "../../../sandbox/manager";

export class GenerationBox {
  private ensuring: Promise<GenerationSandbox> | null = null;
  private ready: SandboxAccess | null = null;

  /**
   * @param ensureBox the object's ensure (SandboxManager.generationStarting)
   * @param materialise runs once the box is up; a failure is the caller's to log, never the generation's
   */
  constructor(
    private readonly ensureBox: () => Promise<GenerationSandbox>,
    private readonly materialise: (access: SandboxAccess) => Promise<void>,
  ) {}

  /** Ensures once per generation; later calls share the outcome. */
  ensure(): Promise<GenerationSandbox> {
    this.ensuring ??= this.ensureBox().then(async (outcome) => {
      // A box that could not start answers every call with why; nothing is prepared in it.
      if (outcome.ok && outcome.up) {
        await this.materialise(outcome.access);
        this.ready = outcome.access;
      }
      return outcome;
    });
    return this.ensuring;
  }

  /** The box's access when this generation already brought it up; null otherwise (no write-through then, OP-SCRIPT-11). */
  get started(): SandboxAccess | null {
    return this.ready;
  }

  /** Access that ensures at first use; a box that cannot be had rejects every call with the reason. */
  access(): SandboxAccess {
    return lazySandboxAccess(async () => {
      const outcome = await this.ensure();
      if (!outcome.ok) throw new SandboxError(outcome.code, outcome.message);
      return outcome.access;
    });
  }
}
