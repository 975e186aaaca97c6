import type { SandboxFiles } from "../scripts/materialise";
import { SandboxError } from "../tools/sandbox-error";
import type { GuestClient } from "./guest-client";

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
