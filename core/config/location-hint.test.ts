import { describe, expect, it, vi } from "vitest";
import { databaseLocationHint } from "./location-hint";

describe("objects near the database", () => {
  it("HARDEN: DATABASE_LOCATION_HINT places new agent and guild objects; unset gives no hint", () => {
    expect(databaseLocationHint({ DATABASE_LOCATION_HINT: "enam" })).toEqual({ locationHint: "enam" });
    expect(databaseLocationHint({ DATABASE_LOCATION_HINT: " weur " })).toEqual({ locationHint: "weur" });
    expect(databaseLocationHint({})).toEqual({});
    expect(databaseLocationHint({ DATABASE_LOCATION_HINT: "" })).toEqual({});
  });

  it("HARDEN: an unknown hint is ignored with one warning naming the allowed values", () => {
    const warn = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      expect(databaseLocationHint({ DATABASE_LOCATION_HINT: "us-east-1" })).toEqual({});
      expect(databaseLocationHint({ DATABASE_LOCATION_HINT: "us-east-1" })).toEqual({});
      const lines = warn.mock.calls.map((c) => String(c[0]));
      expect(lines.filter((l) => l.includes("config.location_hint"))).toHaveLength(1);
      expect(lines.join("\n")).toContain("wnam, enam");
    } finally {
      warn.mockRestore();
    }
  });
});
