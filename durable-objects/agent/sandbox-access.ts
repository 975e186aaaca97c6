/**
 * The tools' way into the agent's box (ToolContext.sandbox): commands, browser actions
 * and files over the guest the generation's ensure returned. When the box could not be
 * ensured, every call rejects with that SandboxError, which the tool shows the model.
 */

import type { GuestClient } from "../../core/sandbox/guest-client";
import { SandboxError } from "../../core/tools/sandbox-error";
import type { SandboxAccess, SandboxFiles } from "../../core/tools/types";
import type { EnsureOutcome } from "./sandbox-lifecycle";

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

/** The guest's file routes as SandboxFiles: a missing folder lists empty, a missing file is already removed. */
export function guestFiles(guest: GuestClient): SandboxFiles {
  const notFound = (error: unknown) => error instanceof SandboxError && error.status === 404;
  return {
    list: (dir) =>
      guest.listFiles(dir).then(
        (listing) => listing.entries,
        (error: unknown) => {
          if (notFound(error)) return [];
          throw error;
        },
      ),
    put: async (path, text) => {
      await guest.putFile(path, text);
    },
    remove: (path) =>
      guest.deleteFile(path).then(
        () => {},
        (error: unknown) => {
          if (!notFound(error)) throw error;
        },
      ),
    move: async (from, to) => {
      await guest.moveFile(from, to);
    },
  };
}

/**
 * Access that ensures the box only at its first use: a run whose only box tools are
 * scripts never starts a container for a generation that runs none (decision 0013).
 */
export function lazySandboxAccess(ensure: () => Promise<SandboxAccess>): SandboxAccess {
  const box = () => ensure();
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
