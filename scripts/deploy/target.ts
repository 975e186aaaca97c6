/** A route of wrangler.toml as wrangler reads it: a pattern string or an object with one. */
export type Route = string | { pattern: string; custom_domain?: boolean };

/**
 * The origin where a deployment answers, from what `wrangler deploy` wrote to its output
 * file (WRANGLER_OUTPUT_FILE_PATH, one JSON object a line): its `deploy` entry lists the
 * workers.dev URL and the routes ("agents.example.com (custom domain)", "example.com/*").
 *
 * @example deployedOrigin('{"type":"deploy","version":1,"targets":["https://w.acme.workers.dev"]}') // "https://w.acme.workers.dev"
 */
export function deployedOrigin(outputFile: string): string | undefined {
  for (const line of outputFile.split("\n")) {
    if (!line.trim()) continue;
    let entry: { type?: unknown; targets?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.type !== "deploy" || !Array.isArray(entry.targets)) continue;
    const origins = entry.targets
      .filter((t): t is string => typeof t === "string")
      .map(targetOrigin)
      .filter((o) => o !== undefined);
    // A custom domain or route is where users go; workers.dev only when there is nothing else.
    return origins.find((o) => !o.endsWith(".workers.dev")) ?? origins[0];
  }
  return undefined;
}

/**
 * The origin of the first route of an environment whose host is concrete (no wildcard).
 *
 * @example routeOrigin([{ pattern: "agents.example.com", custom_domain: true }]) // "https://agents.example.com"
 */
export function routeOrigin(routes: Route[] | undefined): string | undefined {
  for (const route of routes ?? []) {
    const origin = targetOrigin(typeof route === "string" ? route : route.pattern);
    if (origin) return origin;
  }
  return undefined;
}

/**
 * The https origin of a deploy target as wrangler prints it (a URL, a route pattern, or a
 * custom domain with its note); undefined for a wildcard host.
 *
 * @example targetOrigin("agents.example.com (custom domain)") // "https://agents.example.com"
 */
export function targetOrigin(target: string): string | undefined {
  const pattern = target.replace(/\s+\(.*\)$/, "").trim();
  if (pattern.includes("://")) return originOf(pattern);
  const host = pattern.split("/")[0] ?? "";
  if (!host || host.includes("*")) return undefined;
  return originOf(`https://${host}`);
}

function originOf(value: string): string | undefined {
  try {
    const parsed = new URL(value);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}
