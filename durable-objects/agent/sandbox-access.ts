/**
 * The tools' way into the agent's box (ToolContext.sandbox): commands and browser
 * actions over the guest the generation's ensure returned. When the box could not be
 * ensured, every call rejects with that SandboxError, which the tool shows the model.
 */

import type { ExecInput, ExecOutcome } from "./sandbox-guest";
import type { EnsureOutcome } from "./sandbox-lifecycle";

/** The interface the sandbox tools call (core/tools/types.ts declares the same shape). */
export interface SandboxAccess {
  exec(input: ExecInput, signal?: AbortSignal): Promise<ExecOutcome>;
  browser(action: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ text?: string; image?: { mediaType: string; dataBase64: string } }>;
}

export function sandboxAccess(ensured: EnsureOutcome): SandboxAccess {
  if (!ensured.ok) {
    const { error } = ensured;
    return {
      exec: () => Promise.reject(error),
      browser: () => Promise.reject(error),
    };
  }
  const { guest } = ensured;
  return {
    exec: (input, signal) => guest.exec(input, signal),
    browser: (action, args, signal) => guest.browser(action, args, signal),
  };
}
