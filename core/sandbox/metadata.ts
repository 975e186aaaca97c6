/**
 * What the agent object records about its sandbox (SBX-020) and the ensure decision:
 * reuse the running box, create one, or recreate it over the same home (SBX-010..012,
 * SBX-021). Pure: the object supplies the stored record, whether a box runs, and what
 * the generation wants.
 */
import type { SecretValue } from "../output/redaction";
import { reservedSecretName } from "../validation/secret-name";
import { environmentFingerprint, imageFingerprint, secretLabelKey } from "./fingerprint";

/** The two machines (SBX-003/004): lite without browser and coding, standard with either. */
export type Box = "lite" | "standard";

export interface SandboxFlags {
  browser: boolean;
  coding: boolean;
}

/** Where the agent's files live in every box (SBX-005). */
export const SANDBOX_HOME = "/home/agent";

/** @example boxFor({ browser: false, coding: true }) // "standard" */
export function boxFor(flags: SandboxFlags): Box {
  return flags.browser || flags.coding ? "standard" : "lite";
}

/** The sandbox metadata (SBX-020): fingerprints and label-safe keys, never a value (SEC-015). */
export interface SandboxMetadata {
  agent_id: string;
  /** Keyed fingerprint of the environment, 63 hex characters. */
  env_fingerprint: string;
  browser: boolean;
  coding: boolean;
  box: Box;
  /** Only when browser is on. */
  browser_language?: string;
  image_fingerprint: string;
  /** One label-safe key per snapshotted secret id, sorted. */
  secret_keys: string[];
}

/** The image references of the two boxes (SANDBOX_IMAGE_LITE, SANDBOX_IMAGE). */
export interface ImageReferences {
  lite: string;
  standard: string;
}

/**
 * The environment a box is created with (SEC-005, SBX-006, SBX-009): every secret that
 * reaches the agent under its own name, and HOME on coding boxes. The platform's own
 * variables are set last, so a secret cannot shadow them. A secret under a reserved name
 * (OP-SEC-3), which only a row older than the rule can have, is left out: the box's
 * entrypoint, the guest and every shell start with this environment.
 *
 * @example sandboxEnvironment([{ name: "API_KEY", value: "k" }], true) // { API_KEY: "k", HOME: "/home/agent" }
 */
export function sandboxEnvironment(secrets: readonly SecretValue[], coding: boolean): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const { name, value } of secrets) if (reservedSecretName(name) === null) environment[name] = value;
  if (coding) environment.HOME = SANDBOX_HOME;
  return environment;
}

/** The metadata the box must carry for this generation. */
export async function wantedSandbox(input: {
  agentId: string;
  flags: SandboxFlags;
  browserLanguage: string;
  environment: Readonly<Record<string, string>>;
  secretIds: readonly string[];
  images: ImageReferences;
  fingerprintKey: string | undefined;
}): Promise<SandboxMetadata> {
  const box = boxFor(input.flags);
  return {
    agent_id: input.agentId,
    env_fingerprint: await environmentFingerprint(input.environment, input.fingerprintKey),
    browser: input.flags.browser,
    coding: input.flags.coding,
    box,
    ...(input.flags.browser ? { browser_language: input.browserLanguage } : {}),
    image_fingerprint: await imageFingerprint(input.images[box]),
    secret_keys: (await Promise.all(input.secretIds.map(secretLabelKey))).sort(),
  };
}

/** Why a running box is not the one wanted. */
export type Mismatch = "metadata" | "box" | "flags" | "image" | "environment" | "browser_language";

export type EnsureDecision = { action: "reuse" } | { action: "create" } | { action: "recreate"; reasons: Mismatch[] };

/**
 * Reuse, create or recreate. No running box: create (over the saved home). A running box
 * without metadata is one the object lost track of (SBX-021, OP-SBX-11): it is recreated,
 * as is one created with other flags, box, image, environment or browser language
 * (SBX-011, SBX-012, SBX-022).
 *
 * @example ensureDecision(stored, true, { ...stored, env_fingerprint: "other" }) // { action: "recreate", reasons: ["environment"] }
 */
export function ensureDecision(current: SandboxMetadata | null, running: boolean, wanted: SandboxMetadata): EnsureDecision {
  if (!running) return { action: "create" };
  if (!current) return { action: "recreate", reasons: ["metadata"] };
  const reasons = metadataMismatches(current, wanted);
  return reasons.length ? { action: "recreate", reasons } : { action: "reuse" };
}

/** Every way `current` differs from `wanted`, in a fixed order. */
export function metadataMismatches(current: SandboxMetadata, wanted: SandboxMetadata): Mismatch[] {
  const reasons: Mismatch[] = [];
  if (current.agent_id !== wanted.agent_id) reasons.push("metadata");
  if (current.box !== wanted.box) reasons.push("box");
  if (current.browser !== wanted.browser || current.coding !== wanted.coding) reasons.push("flags");
  if (current.image_fingerprint !== wanted.image_fingerprint) reasons.push("image");
  if (current.env_fingerprint !== wanted.env_fingerprint) reasons.push("environment");
  if ((current.browser_language ?? null) !== (wanted.browser_language ?? null)) reasons.push("browser_language");
  return reasons;
}

/**
 * Whether a settings change must destroy an idle box (SBX-022): browser or coding
 * toggled, or browser_language changed while browser is on.
 *
 * @example settingsDestroyBox({ browser: false, coding: false, browser_language: "en-US" }, { browser: true }) // true
 */
export function settingsDestroyBox(before: SandboxFlags & { browser_language: string }, after: Partial<SandboxFlags & { browser_language: string }>): boolean {
  const browser = after.browser ?? before.browser;
  if (browser !== before.browser) return true;
  if ((after.coding ?? before.coding) !== before.coding) return true;
  return browser && (after.browser_language ?? before.browser_language) !== before.browser_language;
}
