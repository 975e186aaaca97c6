import type { TiktokenBPE } from "js-tiktoken/lite";
import { RANK_ASSET_CAP } from "../http/answer-caps";
import { AnswerTooLarge, readJsonWithin } from "../http/read-within";
import type { RankLoader } from "./token-count";

/**
 * Where the console build (web/vite.config.ts) puts the o200k_base rank table among the
 * Worker's static assets, as JSON. Outside the console's routes, and a real file, so the
 * single-page fallback never answers for it.
 */
export const O200K_ASSET_PATH = "/tokenizer/o200k_base.json";

/**
 * A RankLoader reading the table through `fetchAsset` (the Worker's ASSETS binding). A
 * missing file can come back as the console's index.html with 200, so the body must be
 * the table's JSON, not just any success.
 * @example const load = rankAssetLoader((path) => env.ASSETS.fetch(new URL(path, "https://assets.local")));
 */
export function rankAssetLoader(fetchAsset: (path: string) => Promise<Response>): RankLoader {
  return async () => {
    const response = await fetchAsset(O200K_ASSET_PATH);
    if (!response.ok) throw new Error(`rank table asset ${O200K_ASSET_PATH}: HTTP ${response.status}`);
    let ranks: Partial<TiktokenBPE>;
    try {
      ranks = (await readJsonWithin(response, RANK_ASSET_CAP)) as Partial<TiktokenBPE>;
    } catch (error) {
      if (error instanceof AnswerTooLarge) throw error;
      throw new Error(`rank table asset ${O200K_ASSET_PATH} is not JSON (is web/dist built?)`);
    }
    if (typeof ranks.pat_str !== "string" || typeof ranks.bpe_ranks !== "string" || typeof ranks.special_tokens !== "object") {
      throw new Error(`rank table asset ${O200K_ASSET_PATH} is not an o200k_base table`);
    }
    return ranks as TiktokenBPE;
  };
}
