/** Why a sandbox operation could not be done; the code is what tools and the API show. */
export type SandboxErrorCode = "sandbox.unavailable" | "workspace.full" | "sandbox.failed";

/**
 * A sandbox failure a tool turns into an ERROR result the model can read.
 *
 * @example throw new SandboxError("sandbox.unavailable", "No container engine: sandboxes are off here")
 */
export class SandboxError extends Error {
  override readonly name = "SandboxError";
  constructor(
    readonly code: SandboxErrorCode,
    message: string,
  ) {
    super(message);
  }
}
