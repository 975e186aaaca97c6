import { describe, expect, it } from "vitest";
import { VerifiedTokens } from "./verified-tokens";

const token = (id: string, expiresAt: Date | null = null) => ({ id, organisationId: "org", expiresAt, lastUsedAt: null });

describe("verified tokens", () => {
  it("HARDEN: a verified token is trusted for the bound and asked for again after it", () => {
    let now = 1_000_000;
    const cache = new VerifiedTokens(30_000, () => now);
    cache.put("hash-a", token("a"));
    now += 29_999;
    expect(cache.get("hash-a")?.id).toBe("a");
    now += 1;
    expect(cache.get("hash-a")).toBeNull();
  });

  it("HARDEN: a revocation through this isolate evicts every entry of the token at once", () => {
    const cache = new VerifiedTokens();
    cache.put("hash-a", token("a"));
    cache.put("hash-b", token("b"));
    cache.evict({ id: "a" });
    expect(cache.get("hash-a")).toBeNull();
    expect(cache.get("hash-b")?.id).toBe("b");
  });

  it("HARDEN: recording a last use keeps the bound where the verification set it", () => {
    let now = 0;
    const cache = new VerifiedTokens(30_000, () => now);
    cache.put("hash-a", token("a"));
    now = 20_000;
    cache.touch("hash-a", new Date(now));
    expect(cache.get("hash-a")?.lastUsedAt?.getTime()).toBe(20_000);
    now = 30_000;
    expect(cache.get("hash-a")).toBeNull();
  });
});
