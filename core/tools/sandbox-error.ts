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

/**
 * What a sandbox tool answers the model instead of throwing: `ERROR: <code>: <message>`. A
 * missing sandbox reads `sandbox.unavailable` (no engine here, or the box did not start).
 *
 * @example sandboxFailureText(new SandboxError("browser.ref_not_found", "no element matches ref e9"))
 * // "ERROR: browser.ref_not_found: no element matches ref e9"
 */
export function sandboxFailureText(error: SandboxError): string {
  return `ERROR: ${error.code}: ${error.message}`;
}

/** The answer of a sandbox tool in a run whose sandbox could not be reached. */
export function sandboxMissingText(tool: string): string {
  return sandboxFailureText(new SandboxError("sandbox.unavailable", `${tool} needs the agent's sandbox, and none is available to this run`));
}
