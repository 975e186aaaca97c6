import { describe, expect, it } from "vitest";
import { apiRouteTables } from "./api-routes";
import { bindingsTable } from "./bindings";
import { brokenLinks, generatedTables, refreshPages, staleRegions } from "./generate";
import { cell, headingAnchors, relativeLinks } from "./markdown";
import { fillRegions, regionsOf } from "./markers";
import { declaredSettings, dotenvNames, namesInCode, settingsTable } from "./settings";
import { exists, readPage, readPages, readSources } from "./sources";

describe("docs: the committed pages", () => {
  const pages = readPages();
  const { tables, problems } = generatedTables(readSources());

  it("hold every generated table as its sources make it today (npm run docs rewrites them)", () => {
    const { changed, problems: pageProblems } = refreshPages(pages, tables);
    const stale = [...changed.keys()].map((path) => `${path}: ${staleRegions(pages.get(path)!, tables).join(", ")}`);
    expect(stale, "stale generated tables: run `npm run docs` and commit the pages").toEqual([]);
    expect([...problems, ...pageProblems]).toEqual([]);
  });

  it("find a table edited by hand stale, and name the region", () => {
    const fresh = fillRegions(pages.get("docs/api.md")!, tables);
    const edited = fresh.replace("| GET | `/api/health` |", "| GET | `/api/healthz` |");
    expect(edited).not.toBe(fresh);
    expect(staleRegions(fresh, tables)).toEqual([]);
    expect(staleRegions(edited, tables)).toEqual(["api-routes"]);
    expect(refreshPages(new Map([["docs/api.md", edited]]), tables).changed.get("docs/api.md")).toBe(fresh);
  });

  it("link only to files and headings that exist (README.md and docs/)", () => {
    expect(brokenLinks(pages, exists, readPage)).toEqual([]);
  });
});

describe("docs: generated regions", () => {
  const page = "# T\n\n<!-- generated:t -->\nold\n<!-- /generated -->\n\nprose\n";

  it("are the lines between their markers, and filling one leaves the prose as it is", () => {
    expect(regionsOf(page)).toEqual([{ name: "t", body: "old\n" }]);
    const filled = fillRegions(page, { t: "| a |\n| --- |\n" });
    expect(filled).toBe("# T\n\n<!-- generated:t -->\n\n| a |\n| --- |\n\n<!-- /generated -->\n\nprose\n");
    expect(fillRegions(filled, { t: "| a |\n| --- |\n" })).toBe(filled);
  });

  it("refuse a region left open or opened inside another, and report regions and tables without a counterpart", () => {
    expect(() => regionsOf("<!-- generated:a -->\n")).toThrow(/never closed/);
    expect(() => regionsOf("<!-- generated:a -->\n<!-- generated:b -->\n<!-- /generated -->\n")).toThrow(/inside region a/);
    const { problems } = refreshPages(new Map([["p.md", page]]), { other: "x\n" });
    expect(problems).toEqual([
      "p.md: region t is filled by no generated table",
      "no page holds the table other (a <!-- generated:other --> … <!-- /generated --> region)",
    ]);
  });
});

describe("docs: the API's route table", () => {
  it("groups routes by tag in the document's order, escapes what would break a cell and marks the routes that need no token", () => {
    const table = apiRouteTables({
      tags: [{ name: "Agents", description: "Agents and their Memory" }, { name: "Empty" }],
      paths: {
        "/api/agents/{id}/memory": { get: { summary: "The opening <memory> | its text", tags: ["Agents"] } },
        "/api/health": { get: { summary: "Health", security: [] } },
      },
    });
    expect(table).toBe(
      [
        "Routes: 2, in 2 sections. Those marked *(no token)* need no `Authorization` header; every other one does.",
        "",
        "### Agents",
        "",
        "Agents and their Memory.",
        "",
        "| Method | Path | Summary |",
        "| --- | --- | --- |",
        "| GET | `/api/agents/{id}/memory` | The opening &lt;memory&gt; \\| its text |",
        "",
        "### Other",
        "",
        "| Method | Path | Summary |",
        "| --- | --- | --- |",
        "| GET | `/api/health` | Health *(no token)* |",
        "",
      ].join("\n"),
    );
  });
});

describe("docs: the Worker's settings table", () => {
  const envTs = [
    "export interface Settings {",
    "  /**",
    "   * The provider's key.",
    "   * @secret",
    "   */",
    "  MODEL_API_KEY?: string;",
    "  /**",
    "   * Open streams of one run.",
    "   * @default 200 (per run)",
    "   */",
    "  MAX_RUN_SUBSCRIBERS?: string;",
    "  UNDOCUMENTED?: string;",
    "}",
  ].join("\n");
  const wranglerToml = ["[vars]", "# Most routines of one agent.", 'MAX_SCHEDULES = "20"', "", "[env.production.vars]", 'MAX_SCHEDULES = "30"'].join("\n");

  it("reads each setting's doc, default and whether it is a secret from bindings/env.ts", () => {
    expect(declaredSettings(envTs)).toEqual([
      { name: "MODEL_API_KEY", description: "The provider's key.", secret: true },
      { name: "MAX_RUN_SUBSCRIBERS", description: "Open streams of one run.", default: "200 (per run)", secret: false },
      { name: "UNDOCUMENTED", description: "", secret: false },
    ]);
  });

  it("names where each setting is set: wrangler.toml's sections (with a value other than the default), .dev.vars.example, the local stack's code", () => {
    expect(dotenvNames("MODEL_API_KEY=\n# TYPESAFE_API_KEY=\n# A comment\n")).toEqual(["MODEL_API_KEY", "TYPESAFE_API_KEY"]);
    expect(
      namesInCode("// MAX_RUN_SUBSCRIBERS, e.g.\n/* UNDOCUMENTED */\nvars.MODEL_API_KEY = `http://x`;", [
        "MAX_RUN_SUBSCRIBERS",
        "UNDOCUMENTED",
        "MODEL_API_KEY",
      ]),
    ).toEqual(["MODEL_API_KEY"]);
    const { markdown, problems } = settingsTable({
      envTs,
      wranglerToml,
      devVarsExample: "MODEL_API_KEY=\nSTRAY=\n",
      stackSources: ["vars.MODEL_API_KEY = key;"],
    });
    expect(markdown.split("\n")).toEqual([
      "| Setting | Kind | Default | Set by | What it does |",
      "| --- | --- | --- | --- | --- |",
      "| `MAX_RUN_SUBSCRIBERS` | var | `200` (per run) | — | Open streams of one run. |",
      "| `MAX_SCHEDULES` | var | `20` | `[vars]`, `[env.production.vars]` (`30`) | Most routines of one agent. |",
      "| `MODEL_API_KEY` | secret | — | `.dev.vars.example`, `npm start` | The provider's key. |",
      "| `UNDOCUMENTED` | var | — | — |  |",
      "",
    ]);
    expect(problems).toEqual([
      ".dev.vars.example sets STRAY, which neither bindings/env.ts nor wrangler.toml declares",
      "UNDOCUMENTED has no description: give it a doc in bindings/env.ts or a comment above it in wrangler.toml",
    ]);
  });

  it("lists the bindings of each environment", () => {
    const toml = [
      "[[r2_buckets]]",
      'binding = "ATTACHMENTS"',
      'bucket_name = "att"',
      "[[ratelimits]]",
      'name = "API_RATE_LIMIT"',
      'namespace_id = "1001"',
      "simple = { limit = 5000, period = 10 }",
      "[env.staging]",
      "[[env.staging.r2_buckets]]",
      'binding = "ATTACHMENTS"',
      'bucket_name = "att-staging"',
    ].join("\n");
    expect(bindingsTable(toml).split("\n")).toEqual([
      "| Binding | Kind | Top level (local) | `staging` |",
      "| --- | --- | --- | --- |",
      "| `ATTACHMENTS` | R2 bucket | `att` | `att-staging` |",
      "| `API_RATE_LIMIT` | Rate limit | 5000 per 10 s (namespace 1001) | — |",
      "",
    ]);
  });
});

describe("docs: links and cells", () => {
  it("reads relative links outside code, with their fragments, and headings' anchors as GitHub makes them", () => {
    const page = "See [API](docs/api.md#runs), ![shot](console/a.png) and [web](https://x.y).\n`[not](a link)`\n```\n[nor](this)\n```\n[top](#two-commands)\n";
    expect(relativeLinks(page)).toEqual([
      { line: 1, path: "docs/api.md", fragment: "runs" },
      { line: 1, path: "console/a.png", fragment: null },
      { line: 6, path: "", fragment: "two-commands" },
    ]);
    expect(headingAnchors("# Two commands\n## Two commands\n### What if…\n## `npm start`, step by step\n")).toEqual([
      "two-commands",
      "two-commands-1",
      "what-if",
      "npm-start-step-by-step",
    ]);
  });

  it("finds a link to a missing file or heading", () => {
    const pages = new Map([
      ["README.md", "[a](docs/a.md#there) [b](docs/a.md#gone) [c](docs/missing.md) [d](../outside.md)\n"],
      ["docs/a.md", "# There\n"],
    ]);
    expect(
      brokenLinks(
        pages,
        (path) => pages.has(path),
        (path) => pages.get(path) ?? "",
      ),
    ).toEqual([
      "README.md:1: docs/a.md#gone: docs/a.md has no heading #gone",
      "README.md:1: docs/missing.md points at no file",
      "README.md:1: ../outside.md points at no file",
    ]);
  });

  it("keeps a cell one cell: pipes escaped everywhere, angle brackets outside code spans", () => {
    expect(cell("the <memory>\nrow | `a|b` `<slug>`")).toBe("the &lt;memory&gt; row \\| `a\\|b` `<slug>`");
  });
});
