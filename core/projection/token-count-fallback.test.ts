import { afterEach, describe, expect, it, vi } from "vitest";
import { packageRanks } from "./package-ranks";
import { O200K_ASSET_PATH, rankAssetLoader } from "./rank-asset";
import { countText, estimateTokens, prepareTokenCounter } from "./token-count";

// This file starts without the rank table (each test file has its own module state), so it
// sees what a Worker sees while the table is missing or slow.

afterEach(() => {
  vi.restoreAllMocks();
});

function logged(spy: { mock: { calls: unknown[][] } }): Record<string, unknown>[] {
  return spy.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
}

describe("token counting without the rank table (GEN-019, bundle budget)", () => {
  it("GEN-019: a failed load logs tokens.ranks and counts by estimate, never blocking", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await prepareTokenCounter(() => Promise.reject(new Error("HTTP 404")))).toBe(false);
    expect(logged(errors)).toEqual([
      expect.objectContaining({ level: "warn", operation: "tokens.ranks", fallback: "estimate", message: expect.stringContaining("HTTP 404") }),
    ]);
    expect(countText("hello world")).toBe(estimateTokens("hello world"));
    expect(countText("hello world")).toBe(4);
  });

  it("GEN-019: a load that never answers holds a count no longer than the wait", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const started = Date.now();
    expect(await prepareTokenCounter(() => new Promise(() => {}), 50)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(logged(errors)[0]).toMatchObject({ operation: "tokens.ranks", message: expect.stringContaining("within 50 ms") });
  });

  it("GEN-019: the next count tries again and is exact once the table is in", async () => {
    expect(await prepareTokenCounter(packageRanks)).toBe(true);
    expect(countText("hello world")).toBe(2);
    // Loaded once per isolate: later calls do not load again.
    const load = vi.fn(packageRanks);
    expect(await prepareTokenCounter(load)).toBe(true);
    expect(load).not.toHaveBeenCalled();
  });
});

describe("the rank table as a static asset", () => {
  it("HARDEN: the console's index.html (the single-page fallback for a missing file) is refused", async () => {
    const load = rankAssetLoader(async () => new Response("<!doctype html><html></html>", { headers: { "content-type": "text/html" } }));
    await expect(load()).rejects.toThrow(/not JSON/);
    await expect(rankAssetLoader(async () => new Response("gone", { status: 404 }))()).rejects.toThrow(/HTTP 404/);
    await expect(rankAssetLoader(async () => Response.json({ pat_str: 1 }))()).rejects.toThrow(/not an o200k_base table/);
  });

  it("HARDEN: the table is read from its asset path", async () => {
    const table = await packageRanks();
    const paths: string[] = [];
    const load = rankAssetLoader(async (path) => {
      paths.push(path);
      return Response.json(table);
    });
    expect((await load()).pat_str).toBe(table.pat_str);
    expect(paths).toEqual([O200K_ASSET_PATH]);
  });
});
