/**
 * The tools' way into the agent's box (ToolContext.sandbox): commands and browser
 * actions over the guest the generation's ensure returned. When the box could not be
 * ensured, every call rejects with that SandboxError, which the tool shows the model.
 */

import type { SandboxAccess } from "../../core/tools/types";
import type { EnsureOutcome } from "./sandbox-lifecycle";

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
