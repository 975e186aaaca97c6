/**
 * A failure reaching or using the agent's box, with a stable code the tools show the model
 * and the API shows the operator: `sandbox.unavailable` (no engine, containers disabled, the
 * box did not start), `workspace.full`, or a guest error code such as `browser.ref_not_found`.
 *
 * @example throw new SandboxError("sandbox.unavailable", "No container engine is configured")
 */
export class SandboxError extends Error {
  override readonly name = "SandboxError";

  constructor(
    readonly code: string,
    message: string,
    /** The guest's HTTP status when the guest answered the error; absent when it was never reached. */
    readonly status?: number,
  ) {
    super(message);
  }
}
