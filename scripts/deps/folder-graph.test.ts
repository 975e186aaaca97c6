import { describe, expect, it } from "vitest";
import { type CruisedModule, folderCycles } from "./folder-graph";

/** Modules from `file: [imports]`, as dependency-cruiser lists them. */
const cruise = (graph: Record<string, string[]>): CruisedModule[] =>
  Object.entries(graph).map(([source, imports]) => ({ source, dependencies: imports.map((resolved) => ({ resolved })) }));

describe("folder cycles (npm run deps)", () => {
  it("a chain of folders, and imports inside one folder, are no cycle", () => {
    const modules = cruise({
      "a/x.ts": ["a/y.ts", "b/z.ts"],
      "a/y.ts": ["a/x.ts"],
      "b/z.ts": ["c/w.ts"],
      "c/w.ts": [],
    });
    expect(folderCycles(modules)).toEqual([]);
  });

  it("two folders importing each other through different files are a cycle, each hop with an import that makes it", () => {
    const modules = cruise({ "a/x.ts": ["b/z.ts"], "b/z.ts": [], "b/v.ts": ["a/y.ts"], "a/y.ts": [] });
    expect(folderCycles(modules)).toEqual([
      [
        { from: "a", to: "b", example: { from: "a/x.ts", to: "b/z.ts" } },
        { from: "b", to: "a", example: { from: "b/v.ts", to: "a/y.ts" } },
      ],
    ]);
  });

  it("a parent folder and its child are two folders", () => {
    const modules = cruise({ "w/app.ts": ["w/api/routes.ts"], "w/api/routes.ts": ["w/context.ts"], "w/context.ts": [] });
    expect(folderCycles(modules).map((cycle) => cycle.map((hop) => hop.from))).toEqual([["w", "w/api"]]);
  });

  it("a loop round three folders is reported once, from its first folder", () => {
    const modules = cruise({ "c/1.ts": ["a/1.ts"], "a/1.ts": ["b/1.ts"], "b/1.ts": ["c/1.ts"] });
    expect(folderCycles(modules).map((cycle) => cycle.map((hop) => hop.from))).toEqual([["a", "b", "c"]]);
  });

  it("tests, test/ and packages are left out of the folder graph", () => {
    const modules: CruisedModule[] = [
      ...cruise({ "a/x.ts": ["b/y.ts"], "b/y.ts": [], "b/y.test.ts": ["a/x.ts"], "test/seed.ts": ["a/x.ts"], "b/z.ts": ["test/seed.ts"] }),
      { source: "node_modules/p/index.js", dependencies: [{ resolved: "a/x.ts" }] },
      { source: "b/w.ts", dependencies: [{ resolved: "node_modules/p/index.js" }] },
    ];
    expect(folderCycles(modules)).toEqual([]);
  });
});
