/**
 * PENDING: the agent object's sandbox view methods, as the sandbox plan names them, answering
 * that no box can be started. The sandbox object work replaces this module (and the three
 * forwarding methods in agent-object.ts) with the real ones; the Worker routes already call
 * these signatures.
 */
import type { SandboxView } from "../../core/sandbox/view-ticket";

export type SandboxBox = "lite" | "standard";

/** What `sandboxForView` answers: the running box and the port (and path prefix) to proxy to. */
export type SandboxForView = { ok: true; box: SandboxBox; port: number; pathPrefix?: string } | { ok: false; code: string; message: string };

/** What `sandboxState` answers. */
export interface SandboxStateView {
  box: SandboxBox;
  status: "none" | "starting" | "running" | "unavailable";
  reason?: string;
  idle_deadline?: string;
}

const UNAVAILABLE = "Sandboxes are not available: this build starts no containers";

export const pendingSandboxViews = {
  async sandboxForView(_view: SandboxView): Promise<SandboxForView> {
    return { ok: false, code: "sandbox.unavailable", message: UNAVAILABLE };
  },
  async sandboxViewInput(): Promise<void> {},
  async sandboxState(): Promise<SandboxStateView> {
    return { box: "lite", status: "unavailable", reason: UNAVAILABLE };
  },
};
