import type { Env } from "../../../bindings/env";
import { rankAssetLoader } from "../../../core/projection/rank-asset";
import { prepareTokenCounter, type RankLoader } from "../../../core/projection/token-count";

/** The rank table from the Worker's static assets (the console build writes it there). */
export function assetRanks(env: Env): RankLoader {
  return rankAssetLoader(async (path) => {
    if (!env.ASSETS) throw new Error("no ASSETS binding to read the rank table from");
    return env.ASSETS.fetch(new Request(new URL(path, "https://assets.local")));
  });
}

/**
 * Awaited before the object counts a row's tokens: loads the rank table on the first
 * count of the isolate (never at its start), then costs nothing. False when counts are
 * estimates for now (logged; see prepareTokenCounter).
 */
export function tokenCounterReady(env: Env): Promise<boolean> {
  return prepareTokenCounter(assetRanks(env));
}
