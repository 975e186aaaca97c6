/**
 * The files the docs generator reads: the tables' sources and the Markdown pages (README.md
 * and docs/**). The only file I/O of scripts/docs besides tables.ts writing pages back.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { OpenApiDocument } from "./api-routes";
import type { DocSources } from "./generate";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The local stack's sources that set the Worker's variables (the forge's App among them). */
const STACK_SOURCES = ["scripts/stack/stack.ts", "scripts/forge/local-app.ts"];

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

export function readSources(): DocSources {
  return {
    openapi: JSON.parse(read("docs/openapi.json")) as OpenApiDocument,
    envTs: read("bindings/env.ts"),
    wranglerToml: read("wrangler.toml"),
    devVarsExample: read(".dev.vars.example"),
    stackSources: STACK_SOURCES.map(read),
  };
}

/** README.md and every Markdown page under docs/, by path from the repository root. */
export function readPages(): Map<string, string> {
  const pages = new Map<string, string>([["README.md", read("README.md")]]);
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith(".md")) pages.set(path, read(path));
    }
  };
  walk("docs");
  return pages;
}

export const exists = (path: string) => existsSync(join(ROOT, path));
export const readPage = read;
