/** The one SandboxError the tools, the guest client and the agent object share. */
export { SandboxError } from "../tools/sandbox-error";

/**
 * The HTTP status of a refusal to bring the box up for an operator (a view, a run's diff):
 * 503 when no box can start, 404 when there is nothing to show, 409 otherwise.
 *
 * @example boxRefusalStatus("sandbox.no_browser") // 409
 */
export function boxRefusalStatus(code: string): 503 | 404 | 409 {
  return code === "sandbox.unavailable" ? 503 : code.endsWith(".not_found") ? 404 : 409;
}
