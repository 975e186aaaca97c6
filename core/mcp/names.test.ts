import { describe, expect, it } from "vitest";
import { MAX_TOOL_NAME, nameTools, slugIssue, ToolNameCollision, toolName } from "./names";

describe("MCP tool names", () => {
  it("a tool reaches the model as <slug>__<tool>", () => {
    expect(toolName("coingecko", "get_simple_price")).toBe("coingecko__get_simple_price");
  });

  it("characters outside [A-Za-z0-9_-] become _", () => {
    expect(toolName("web", "search.v2/pages ü")).toBe("web__search_v2_pages__");
  });

  it("a long name is cut to 64 with a stable hash suffix, and two long names sharing their start differ", () => {
    const a = toolName("slug", `${"x".repeat(80)}_one`);
    const b = toolName("slug", `${"x".repeat(80)}_two`);
    expect(a).toHaveLength(MAX_TOOL_NAME);
    expect(b).toHaveLength(MAX_TOOL_NAME);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^slug__x+_[0-9a-z]{6}$/);
    expect(toolName("slug", `${"x".repeat(80)}_one`)).toBe(a);
    expect(toolName("s", "y".repeat(61))).toBe(`s__${"y".repeat(61)}`);
  });

  it("two remote names that give one name are refused, naming both", () => {
    expect(() => nameTools("s", [{ name: "a.b" }, { name: "ok" }, { name: "a_b" }])).toThrow(ToolNameCollision);
    try {
      nameTools("s", [{ name: "a.b" }, { name: "a_b" }]);
    } catch (error) {
      expect((error as Error).message).toContain('"a.b" and "a_b"');
      expect((error as ToolNameCollision).toolName).toBe("s__a_b");
    }
    expect(nameTools("s", [{ name: "one" }, { name: "two" }]).map((t) => t.toolName)).toEqual(["s__one", "s__two"]);
  });

  it("slugs: lowercase, a letter first, at most 24 characters, no __", () => {
    for (const ok of ["a", "coingecko", "my-tools_2", "a".repeat(24)]) expect(slugIssue(ok)).toBeNull();
    for (const bad of ["", "1abc", "Caps", "a".repeat(25), "has space", "a.b", "my__tools"]) expect(slugIssue(bad)).not.toBeNull();
    expect(slugIssue("my__tools")).toBe("must not contain __");
  });
});
