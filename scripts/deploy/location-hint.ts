import type { LocationHint } from "../../core/config/location-hint";

/** The cloud region of a Neon database, from its host name. */
export interface NeonRegion {
  cloud: "aws" | "azure";
  region: string;
  /** Neon's region id and Cloudflare's placement region spelling, e.g. "aws:us-east-2". */
  id: string;
}

/** Neon's regions and the Cloudflare location hint nearest each. */
const HINTS: Record<string, LocationHint> = {
  "aws:us-east-1": "enam",
  "aws:us-east-2": "enam",
  "aws:us-west-2": "wnam",
  "aws:ca-central-1": "enam",
  "aws:sa-east-1": "sam",
  "aws:eu-central-1": "weur",
  "aws:eu-west-2": "weur",
  "aws:eu-west-1": "weur",
  "aws:eu-west-3": "weur",
  "aws:eu-north-1": "eeur",
  "aws:ap-southeast-1": "apac",
  "aws:ap-northeast-1": "apac",
  "aws:ap-south-1": "apac",
  "aws:ap-southeast-2": "oc",
  "aws:me-central-1": "me",
  "aws:il-central-1": "me",
  "aws:af-south-1": "afr",
  "azure:eastus2": "enam",
  "azure:eastus": "enam",
  "azure:westus3": "wnam",
  "azure:westus2": "wnam",
  "azure:germanywestcentral": "weur",
  "azure:westeurope": "weur",
};

/**
 * The region of a Neon connection string's host (`ep-….<region>.<cloud>.neon.tech`, pooled or
 * direct); undefined for any other host (a local Postgres, another provider).
 *
 * @example neonRegion("postgresql://u:p@ep-cool-1.us-east-2.aws.neon.tech/db") // { cloud: "aws", region: "us-east-2", id: "aws:us-east-2" }
 */
export function neonRegion(databaseUrl: string): NeonRegion | undefined {
  let host: string;
  try {
    host = new URL(databaseUrl).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  const match = /^[^.]+\.([a-z0-9-]+)\.(aws|azure)\.neon\.tech$/.exec(host);
  if (!match) return undefined;
  const region = match[1] as string;
  const cloud = match[2] as "aws" | "azure";
  return { cloud, region, id: `${cloud}:${region}` };
}

/**
 * The Durable Object location hint nearest a Neon database, or undefined when its region is
 * not known here (then objects start near their first caller, as without a hint).
 *
 * @example locationHint("postgresql://u:p@ep-x-123.eu-central-1.aws.neon.tech/db") // "weur"
 */
export function locationHint(databaseUrl: string): LocationHint | undefined {
  const region = neonRegion(databaseUrl);
  return region ? HINTS[region.id] : undefined;
}
