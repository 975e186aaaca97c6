import { addressKind } from "../providers/egress";
import { keySetFrom } from "./crypto";

/** The secrets a deployment needs, as `/api/health` reports them: names only, never values. */
export interface SecretsReport {
  /** Required secrets that are not set. */
  missing: string[];
  /** Secrets that are set but cannot be used (a key that does not parse). */
  unreadable: string[];
}

export interface SecretsEnv {
  SECRETS_KEK?: string;
  SECRETS_KEK_PREVIOUS?: string;
  MODEL_API_KEY?: string;
  MODEL_BASE_URL?: string;
}

/**
 * Which required secrets are missing or unreadable. SECRETS_KEK is always required (stored
 * secret values are sealed with it; SECRETS_KEK_PREVIOUS, when set, must parse with it).
 * MODEL_API_KEY is required when the platform's provider (MODEL_BASE_URL) is a public
 * address: a stand-in on the platform's own machines (the local mock model) takes no key,
 * and without MODEL_BASE_URL agents bring their own provider and key. The optional keys
 * (TYPESAFE_API_KEY, TAVILY_API_KEY, SANDBOX_FINGERPRINT_KEY) turn features on or have a
 * default, so their absence is no problem.
 *
 * @example await secretsReport({ MODEL_BASE_URL: "https://api.openai.com/v1" }) // { missing: ["SECRETS_KEK", "MODEL_API_KEY"], unreadable: [] }
 */
export async function secretsReport(env: SecretsEnv): Promise<SecretsReport> {
  const report: SecretsReport = { missing: [], unreadable: [] };
  if (!env.SECRETS_KEK?.trim()) report.missing.push("SECRETS_KEK");
  else {
    try {
      await keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS);
    } catch {
      // The parse error may quote part of the key: only the name goes out.
      report.unreadable.push(env.SECRETS_KEK_PREVIOUS?.trim() ? "SECRETS_KEK or SECRETS_KEK_PREVIOUS" : "SECRETS_KEK");
    }
  }
  if (modelKeyRequired(env.MODEL_BASE_URL) && !env.MODEL_API_KEY?.trim()) report.missing.push("MODEL_API_KEY");
  return report;
}

function modelKeyRequired(baseUrl: string | undefined): boolean {
  if (!baseUrl?.trim()) return false;
  try {
    return addressKind(new URL(baseUrl).hostname) === null;
  } catch {
    return true;
  }
}

/** One line per problem, for a health answer's `problems`. */
export function secretProblems(report: SecretsReport): string[] {
  return [...report.missing.map((name) => `${name} is not set`), ...report.unreadable.map((name) => `${name} cannot be read (not a valid key)`)];
}
