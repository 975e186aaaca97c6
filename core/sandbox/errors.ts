/** The one SandboxError the tools, the guest client and the agent object share. */
export { SandboxError } from "../tools/sandbox-error";
