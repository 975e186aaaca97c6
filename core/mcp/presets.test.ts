import { describe, expect, it } from "vitest";
import { enabledByDefault, findPreset, PRESETS, parseOverrides, presetCatalog } from "./presets";

describe("MCP presets", () => {
  it("the catalog holds the curated adapters: CoinGecko, Alchemy, Wallet, X, TwitterAPI.io, Qonto and DexPaprika", () => {
    expect(PRESETS.map((p) => p.title)).toEqual(["CoinGecko", "Alchemy", "Wallet", "X", "TwitterAPI.io", "Qonto", "DexPaprika"]);
    for (const p of PRESETS) {
      expect(p.url).toMatch(/^https:\/\//);
      expect(p.tools.length).toBeGreaterThan(0);
      expect(new Set(p.tools).size).toBe(p.tools.length);
    }
  });

  it("only a preset's curated tools start enabled; every tool of a plain connection does", () => {
    const coingecko = findPreset("coingecko", undefined)!;
    expect(enabledByDefault(coingecko, "get_simple_price")).toBe(true);
    expect(enabledByDefault(coingecko, "something_else")).toBe(false);
    expect(enabledByDefault(null, "something_else")).toBe(true);
  });

  it("MCP_PRESETS_URL_OVERRIDES points presets elsewhere and offers the local preset only when it names one", () => {
    expect(presetCatalog(undefined).some((p) => p.key === "local")).toBe(false);
    const catalog = presetCatalog(" coingecko=http://127.0.0.1:9/mcp , local=http://127.0.0.1:9/mcp, typo=http://x, junk");
    expect(catalog.find((p) => p.key === "coingecko")!.url).toBe("http://127.0.0.1:9/mcp");
    expect(catalog.find((p) => p.key === "local")).toMatchObject({ url: "http://127.0.0.1:9/mcp", tools: ["echo", "add"] });
    expect([...parseOverrides("typo=http://x").keys()]).toEqual([]);
    expect(findPreset("nope", undefined)).toBeNull();
  });
});
