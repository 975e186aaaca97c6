/**
 * The catalog of curated MCP adapters (EXACT-021): public servers the platform knows, each
 * with the tools enabled when it is added. Adding a preset creates an ordinary connection
 * whose discovered tools are enabled only when they are on the curated list.
 *
 * URLs and tool names are the servers' published ones as far as they are known; a server
 * that renames a curated tool simply has it arrive disabled. An operator can point a preset
 * elsewhere (a proxy, a self-hosted copy, a local stand-in) with MCP_PRESETS_URL_OVERRIDES.
 */

export type PresetAuth = "none" | "bearer" | "oauth";

export interface McpPreset {
  key: string;
  title: string;
  url: string;
  auth: PresetAuth;
  /** Remote tool names enabled when the preset is added; every other tool starts disabled. */
  tools: readonly string[];
  docsUrl: string;
}

export const PRESETS: readonly McpPreset[] = [
  {
    key: "coingecko",
    title: "CoinGecko",
    url: "https://mcp.api.coingecko.com/mcp",
    auth: "none",
    tools: ["get_simple_price", "get_coins_markets", "get_search", "get_id_coins", "get_range_coins_market_chart", "get_search_trending"],
    docsUrl: "https://docs.coingecko.com/reference/mcp-server",
  },
  {
    key: "alchemy",
    title: "Alchemy",
    url: "https://mcp.alchemy.com/mcp",
    auth: "bearer",
    tools: [
      "fetchTokenPriceBySymbol",
      "fetchTokenPriceByAddress",
      "fetchTokenPriceHistoryBySymbol",
      "fetchTokensOwnedByMultichainAddresses",
      "fetchAddressTransactionHistory",
      "fetchTransfers",
      "fetchNftsOwnedByMultichainAddresses",
    ],
    docsUrl: "https://www.alchemy.com/docs/alchemy-mcp-server",
  },
  {
    key: "wallet",
    title: "Wallet",
    url: "https://mcp.wallet.xyz/mcp",
    auth: "oauth",
    tools: ["get_wallet_address", "get_balances", "list_transactions"],
    docsUrl: "https://modelcontextprotocol.io/docs/getting-started/intro",
  },
  {
    key: "x",
    title: "X",
    url: "https://mcp.x.com/mcp",
    auth: "oauth",
    tools: ["search_posts", "get_post", "get_user_by_username", "get_user_posts"],
    docsUrl: "https://docs.x.com/x-api/introduction",
  },
  {
    key: "twitterapi",
    title: "TwitterAPI.io",
    url: "https://mcp.twitterapi.io/mcp",
    auth: "bearer",
    tools: ["get_user_info", "get_user_last_tweets", "get_tweets_by_ids", "advanced_search", "get_tweet_replies"],
    docsUrl: "https://docs.twitterapi.io/introduction",
  },
  {
    key: "qonto",
    title: "Qonto",
    url: "https://mcp.qonto.com/mcp",
    auth: "oauth",
    tools: ["get_organization", "list_bank_accounts", "list_transactions", "get_transaction"],
    docsUrl: "https://docs.qonto.com/",
  },
  {
    key: "dexpaprika",
    title: "DexPaprika",
    url: "https://mcp.dexpaprika.com/streamable-http",
    auth: "none",
    tools: ["getNetworks", "getNetworkDexes", "getNetworkPools", "getPoolDetails", "getTokenDetails", "getTokenPools", "search", "getStats"],
    docsUrl: "https://docs.dexpaprika.com/get-started/dexpaprika-mcp",
  },
];

/**
 * A preset for trying the mechanism against a server of one's own: offered only when
 * MCP_PRESETS_URL_OVERRIDES names its URL (the local stack and the tests do).
 */
export const LOCAL_PRESET: McpPreset = {
  key: "local",
  title: "Local test server",
  url: "",
  auth: "none",
  tools: ["echo", "add"],
  docsUrl: "https://modelcontextprotocol.io/",
};

/**
 * MCP_PRESETS_URL_OVERRIDES: a comma list of `key=url`. Entries without `=` or with an
 * unknown key are ignored (a typo changes nothing).
 *
 * @example parseOverrides("coingecko=http://127.0.0.1:9/mcp") // Map { "coingecko" => "http://127.0.0.1:9/mcp" }
 */
export function parseOverrides(setting: string | undefined): Map<string, string> {
  const known = new Set([...PRESETS.map((p) => p.key), LOCAL_PRESET.key]);
  const out = new Map<string, string>();
  for (const part of (setting ?? "").split(",")) {
    const at = part.indexOf("=");
    if (at <= 0) continue;
    const key = part.slice(0, at).trim();
    const url = part.slice(at + 1).trim();
    if (known.has(key) && url) out.set(key, url);
  }
  return out;
}

/**
 * The catalog as this deployment offers it: overridden URLs applied, and the local preset
 * only when it has one.
 *
 * @example presetCatalog("local=http://127.0.0.1:9/mcp").at(-1)?.key // "local"
 */
export function presetCatalog(setting: string | undefined): McpPreset[] {
  const overrides = parseOverrides(setting);
  const withUrl = (p: McpPreset): McpPreset => ({ ...p, url: overrides.get(p.key) ?? p.url });
  const catalog = PRESETS.map(withUrl);
  if (overrides.has(LOCAL_PRESET.key)) catalog.push(withUrl(LOCAL_PRESET));
  return catalog;
}

/** One preset of the catalog by key, or null when the deployment does not offer it. */
export function findPreset(key: string, setting: string | undefined): McpPreset | null {
  return presetCatalog(setting).find((p) => p.key === key) ?? null;
}

/**
 * Whether a discovered tool starts enabled: every tool of a plain connection, only the
 * curated ones of a preset's.
 */
export function enabledByDefault(preset: McpPreset | null, remoteName: string): boolean {
  return preset === null || preset.tools.includes(remoteName);
}
