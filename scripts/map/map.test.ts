import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, repositoryReader } from "./files";
import { ARCHITECTURE, PATHS } from "./paths";
import { countSentence, writeSections } from "./render";
import { countsOf, type Path, type Step } from "./types";
import { importSpecifiers, type Reader, resolveSpecifier, walkPath } from "./walk";

describe("the paths docs/architecture.md maps (scripts/map/message-path.ts, task-path.ts)", () => {
  const read = repositoryReader();

  for (const path of PATHS) {
    it(`${path.title}: every listed file exists and reaches the next as listed`, () => {
      expect(walkPath(path, read)).toEqual([]);
    });
  }

  it("the path sections of docs/architecture.md are as `npm run map` writes them", () => {
    const doc = readFileSync(join(ROOT, ARCHITECTURE), "utf8");
    const { text, missing } = writeSections(doc, PATHS);
    expect(missing).toEqual([]);
    expect(text === doc, "docs/architecture.md's path sections are out of date: run npm run map").toBe(true);
  });
});

/** A reader over an in-memory tree. */
const tree =
  (files: Record<string, string | undefined>): Reader =>
  (file) =>
    files[file];

const pathOf = (steps: Step[]): Path => ({ id: "t", title: "T", intro: "", span: "from a to b", steps });

describe("the walk's import parse", () => {
  it("reads static, type-only, multi-line, re-exported, dynamic and bare imports, not those in comments", () => {
    const source = [
      'import { a } from "./a";',
      'import type { B } from "../b/b";',
      "import {",
      "  c,",
      "  d,",
      '} from "./cd.js";',
      'export { e } from "./e";',
      "// import { gone } from './commented';",
      '/* import { also } from "./commented-too"; */',
      'const { f } = await import("./f");',
      'import "./side-effect";',
      'import { z } from "zod";',
    ].join("\n");
    expect(importSpecifiers(source)).toEqual(["./a", "../b/b", "./cd.js", "./e", "./f", "./side-effect", "zod"]);
  });

  it("resolves relative specifiers as the bundler does, and leaves packages out", () => {
    const exists = (f: string) => ["x/a.ts", "x/b.ts", "y/index.ts", "x/v.tsx"].includes(f);
    expect(resolveSpecifier("x/main.ts", "./a", exists)).toBe("x/a.ts");
    expect(resolveSpecifier("x/main.ts", "./b.js", exists)).toBe("x/b.ts");
    expect(resolveSpecifier("x/main.ts", "../y", exists)).toBe("y/index.ts");
    expect(resolveSpecifier("x/main.ts", "./v", exists)).toBe("x/v.tsx");
    expect(resolveSpecifier("x/main.ts", "hono", exists)).toBeNull();
    expect(resolveSpecifier("x/main.ts", "./missing", exists)).toBeNull();
  });
});

describe("the walk's checks", () => {
  const files = {
    "w/route.ts": 'import { stub } from "../bindings/objects";\nexport const go = (env) => stub(env).post("x");',
    "bindings/objects.ts": "export function stub(env) { return env.OBJ.get(); }",
    "o/object.ts": 'import { DurableObject } from "cloudflare:workers";\nexport class O extends DurableObject {\n  post(x) { return import("./rooms"); }\n}',
    "o/rooms.ts": 'import { run } from "../r/run";\nimport { helper } from "./helper";',
    "o/helper.ts": 'import { deep } from "../r/deep";',
    "r/run.ts": 'import { other } from "../q/other";',
    "q/other.ts": 'import { deep } from "../r/deep";',
    "r/deep.ts": "export const deep = 1;",
  };
  const route: Step = { file: "w/route.ts", what: "the route" };
  const objects: Step = { file: "bindings/objects.ts", what: "the stub", reached: { kind: "import" } };
  const object: Step = { file: "o/object.ts", what: "the object", reached: { kind: "rpc", from: "w/route.ts", method: "post", stub: "stub" } };
  const rooms: Step = { file: "o/rooms.ts", what: "the rooms", reached: { kind: "import" } };
  const run: Step = { file: "r/run.ts", what: "the run", reached: { kind: "import" } };

  it("passes a path whose every edge holds: imports, a dynamic import, an RPC on a stub of bindings/objects.ts", () => {
    expect(walkPath(pathOf([route, objects, object, rooms, run]), tree(files))).toEqual([]);
  });

  it("fails when a listed file is gone, naming the step", () => {
    const read = tree({ ...files, "o/rooms.ts": undefined });
    expect(walkPath(pathOf([route, objects, object, rooms, run]), read)).toEqual([
      "t step 4 (o/rooms.ts): no such file",
      "t step 5 (r/run.ts): o/rooms.ts does not import r/run.ts",
    ]);
  });

  it("fails when a step's file no longer imports the next", () => {
    const read = tree({ ...files, "o/rooms.ts": 'import { helper } from "./helper";' });
    expect(walkPath(pathOf([route, objects, object, rooms, run]), read)).toEqual(["t step 5 (r/run.ts): o/rooms.ts does not import r/run.ts"]);
  });

  it("fails when the object no longer defines the method, or the caller no longer calls it or imports its stub", () => {
    const read = tree({
      ...files,
      "o/object.ts": files["o/object.ts"].replace("post(x)", "put(x)"),
      "w/route.ts": "export const go = (env) => stub(env).send();",
    });
    expect(walkPath(pathOf([route, object]), read)).toEqual([
      "t step 2 (o/object.ts): w/route.ts does not call .post(",
      "t step 2 (o/object.ts): w/route.ts does not import bindings/objects.ts, where stub is",
      "t step 2 (o/object.ts): o/object.ts does not define post(",
    ]);
  });

  it("takes an indirect import only through files of the path or of either end's folder, at most two of them", () => {
    const deep = (through: string[]): Step => ({ file: "r/deep.ts", what: "deep", reached: { kind: "import", from: "o/rooms.ts", through } });
    const read = tree(files);
    const rooms: Step = { file: "o/rooms.ts", what: "the rooms, first" };
    expect(walkPath(pathOf([rooms, deep(["o/helper.ts"])]), read)).toEqual([]);
    expect(walkPath(pathOf([rooms, run, deep(["r/run.ts", "q/other.ts"])]), read)).toEqual([
      "t step 3 (r/deep.ts): q/other.ts is neither a step of the path nor in the folder of o/rooms.ts or r/deep.ts",
    ]);
    expect(walkPath(pathOf([rooms, deep(["o/helper.ts", "r/run.ts", "q/other.ts"])]), read)).toEqual([
      "t step 2 (r/deep.ts): imports through 3 files, more than 2",
    ]);
    expect(walkPath(pathOf([rooms, deep([])]), read)).toEqual(["t step 2 (r/deep.ts): o/rooms.ts does not import r/deep.ts"]);
  });

  it("holds an edge from a step with an alternative to the alternative too", () => {
    const read = tree({ ...files, "o/route2.ts": "export const nothing = 1;" });
    const twin: Step = {
      ...rooms,
      reached: { kind: "import", from: "o/object.ts" },
      or: { file: "o/route2.ts", what: "or", reached: { kind: "import", from: "o/object.ts" } },
    };
    expect(walkPath(pathOf([route, objects, object, twin, run]), read)).toEqual([
      "t step 4 (o/route2.ts): o/object.ts does not import o/route2.ts",
      "t step 5 (r/run.ts): o/route2.ts does not import r/run.ts",
    ]);
  });

  it("checks an HTTP edge by the markers on both sides, and an exec edge by the command in its origin and its program", () => {
    const read = tree({
      "c/client.ts": 'fetch("/exec")',
      "s/server.ts": 'import { spawnIt } from "./exec";\nif (path === "/exec") spawnIt();',
      "s/exec.ts": "export const spawnIt = () => spawn(cmd);",
      "p/main.ts": 'switch (name) { case "prepare": break; }',
      "o/commands.ts": 'import { send } from "../c/client";\nrun("prepare")',
    });
    const commands: Step = { file: "o/commands.ts", what: "commands" };
    const steps: Step[] = [
      commands,
      { file: "c/client.ts", what: "client", reached: { kind: "import" } },
      { file: "s/server.ts", what: "server", reached: { kind: "http", request: "POST /exec", sent: { marker: '"/exec"' }, served: { marker: '"/exec"' } } },
      { file: "s/exec.ts", what: "exec", reached: { kind: "import" } },
      { file: "p/main.ts", what: "main", reached: { kind: "exec", command: "prepare", origin: "o/commands.ts" } },
    ];
    expect(walkPath(pathOf(steps), read)).toEqual([]);
    const renamed: Step = { ...steps[4]!, reached: { kind: "exec", command: "push", origin: "o/commands.ts" } };
    expect(walkPath(pathOf([...steps.slice(0, 4), renamed]), read)).toContain('t step 5 (p/main.ts): p/main.ts does not handle the command "push"');
  });

  it("names an edge's `from` only among the earlier steps", () => {
    const late: Step = { file: "r/run.ts", what: "run", reached: { kind: "import", from: "o/rooms.ts" } };
    // o/rooms.ts does import r/run.ts, but comes later in the list.
    expect(walkPath(pathOf([route, late, rooms]), tree(files))).toContain("t step 2 (r/run.ts): o/rooms.ts is not an earlier step");
  });
});

describe("the written sections", () => {
  const path = pathOf([
    { file: "a/one.ts", what: "one" },
    { file: "a/mw.ts", what: "middleware", reached: { kind: "import" }, middleware: true },
    {
      file: "b/two.ts",
      what: "two",
      reached: { kind: "import", from: "a/one.ts" },
      or: { file: "c/twin.ts", what: "twin", reached: { kind: "import", from: "a/one.ts" } },
    },
    { file: "a/one.ts", what: "again", reached: { kind: "import", from: "b/two.ts" } },
  ]);

  it("count each file once, the alternative included, and say the count without middleware", () => {
    expect(countsOf(path)).toEqual({ files: 4, folders: 3, middleware: 1, alternatives: 1 });
    expect(countSentence(path)).toBe(
      "**4 files in 3 folders** from a to b (one of them, listed with “or”, in place of another where the platform routes the work so); 3 without the Worker's 1 middleware file.",
    );
  });

  it("replace only what lies between a path's markers, and say which markers are missing", () => {
    const doc = "# Title\n\nbefore\n<!-- map:t -->\nold\n<!-- /map:t -->\nafter\n";
    const { text, missing } = writeSections(doc, [path]);
    expect(missing).toEqual([]);
    expect(text.startsWith("# Title\n\nbefore\n<!-- map:t -->\n")).toBe(true);
    expect(text.endsWith("<!-- /map:t -->\nafter\n")).toBe(true);
    expect(text).toContain("4. `a/one.ts` (again) (`a/`): again ← imported by `b/two.ts`");
    expect(text).toContain("   - or `c/twin.ts` (`c/`): twin ← imported by `a/one.ts`");
    expect(writeSections(text, [path]).text).toBe(text);
    expect(writeSections("no markers", [path]).missing).toEqual(["t"]);
  });
});
