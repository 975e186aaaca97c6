/**
 * A repository's seed (decision 0037): the git directory of a task's first run's workspace right
 * after its preparation (a clean clone through the gateway, no work tree), kept in R2 so that the
 * next task of the repository starts from it and fetches what changed, not the whole history.
 *
 * Only a pristine box's volume becomes a seed, and only before anything of the tenant runs in
 * it: a seed is shared by every task of the repository, so what the agent does in its own box
 * must never reach another task through it. A seed's taker treats it as any volume, untrusted:
 * task-prepare sanitizes it, fetches its refs from the gateway and keeps only their objects.
 */
import type { GuestClient } from "../../core/sandbox/guest-client";
import type { SandboxHomes } from "./home";

/** A seed older than this is replaced by the next pristine preparation: later tasks fetch less. */
export const SEED_MAX_AGE_MS = 24 * 3600_000;

export interface SeedRefresh {
  /** The new seed's size, or null when none was saved. */
  saved_bytes: number | null;
  reason: "saved" | "fresh" | "no_box" | "no_key";
}

/**
 * Saves the box's volume as the repository's seed when the stored one is missing or older than
 * `maxAgeMs`. A failure throws: the caller logs it, and the run goes on without a new seed.
 */
export async function refreshSeed(homes: SandboxHomes, guest: GuestClient, capBytes: number, now: number, maxAgeMs: number): Promise<SeedRefresh> {
  const savedAt = await homes.seedSavedAt();
  if (savedAt === undefined) return { saved_bytes: null, reason: "no_key" };
  if (savedAt && now - savedAt.getTime() < maxAgeMs) return { saved_bytes: null, reason: "fresh" };
  const bytes = await homes.saveSeed(await guest.getArchive("data", { maxBytes: capBytes, gitOnly: true }), capBytes);
  return bytes === null ? { saved_bytes: null, reason: "no_key" } : { saved_bytes: bytes, reason: "saved" };
}
