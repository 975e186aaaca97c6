/**
 * The tools' way into the agent's box (ToolContext.sandbox): commands, browser actions
 * and files over the guest the generation's ensure returned. When the box could not be
 * ensured, every call rejects with that SandboxError, which the tool shows the model.
 */

import { guestFiles } from "../../core/sandbox/guest-files";
import type { SandboxAccess } from "../../core/tools/types";
import type { EnsureOutcome } from "./lifecycle";

export function sandboxAccess(ensured: EnsureOutcome): SandboxAccess {
  if (!ensured.ok) {
    const { error } = ensured;
    const refuse = () => Promise.reject(error);
    return { exec: refuse, browser: refuse, files: { list: refuse, put: refuse, remove: refuse, move: refuse } };
  }
  const { guest } = ensured;
  return {
    exec: (input, signal) => guest.exec(input, signal),
    browser: (action, args, signal) => guest.browser(action, args, signal),
    files: guestFiles(guest),
  };
}

/**
 * Access that ensures the box only at its first use: a run whose only box tools are
 * scripts never starts a container for a generation that runs none (decision 0013).
 */
export function lazySandboxAccess(box: () => Promise<SandboxAccess>): SandboxAccess {
  return {
    exec: async (input, signal) => (await box()).exec(input, signal),
    browser: async (action, args, signal) => (await box()).browser(action, args, signal),
    files: {
      list: async (dir) => (await box()).files.list(dir),
      put: async (path, text) => (await box()).files.put(path, text),
      remove: async (path) => (await box()).files.remove(path),
      move: async (from, to) => (await box()).files.move(from, to),
    },
  };
}
