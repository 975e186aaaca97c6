import { describe, expect, it } from "vitest";
import { nativeToolNames } from "../tools/registry";
import { executesScripts, scriptToolSchemas } from "./script-snapshot";

const entry = (name: string, parameters: Record<string, unknown> | null) => ({
  id: name,
  name,
  description: `${name} helps`,
  parameters,
  source: "print(1)",
  source_hash: "h",
});

describe("a run's script tools", () => {
  it("SCRIPT-021 / EXACT-014: only rows with parameters become tools, under their name, with their description and schema", () => {
    const schema = { type: "object", properties: { city: { type: "string" } } };
    expect(scriptToolSchemas([entry("weather", schema), entry("plain", null)], new Set())).toEqual([
      { type: "function", function: { name: "weather", description: "weather helps", parameters: schema } },
    ]);
  });

  it("OP-SCRIPT-9: a name that now collides with another offered tool is skipped", () => {
    expect(scriptToolSchemas([entry("lookup", { type: "object" })], new Set(["lookup"]))).toEqual([]);
  });

  it("SCRIPT-047: script_run or a script's own tool executes in the box; the catalog tools alone do not", () => {
    const native = nativeToolNames();
    const tools = (...names: string[]) => names.map((name) => ({ function: { name } }));
    expect(executesScripts(tools("script_list", "script_create", "note_read"), native)).toBe(false);
    expect(executesScripts(tools("script_list", "script_run"), native)).toBe(true);
    expect(executesScripts(tools("note_read", "weather"), native)).toBe(true);
  });
});
