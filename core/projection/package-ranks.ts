import type { RankLoader } from "./token-count";

/**
 * The rank table straight from the js-tiktoken package, for Node (tests, benchmarks, the
 * console build). The Worker must not import this module: its bundler would inline the
 * 2.2 MiB table it names.
 * @example await prepareTokenCounter(packageRanks)
 */
export const packageRanks: RankLoader = async () => (await import("js-tiktoken/ranks/o200k_base")).default;
