/**
 * What `npm run docs` writes, in memory: the generated tables from their sources, the pages
 * with their regions filled, and what is stale or broken. Pure: the file reading is in
 * sources.ts, so the unit test runs the same generator.
 */
import { posix } from "node:path";
import { apiRouteTables, type OpenApiDocument } from "./api-routes";
import { bindingsTable } from "./bindings";
import { headingAnchors, relativeLinks } from "./markdown";
import { fillRegions, regionsOf, unknownRegions } from "./markers";
import { type SettingsSources, settingsTable } from "./settings";

export interface DocSources extends SettingsSources {
  /** docs/openapi.json, parsed. */
  openapi: OpenApiDocument;
}

/** Each generated table by its region name, and what keeps one from being complete. */
export function generatedTables(sources: DocSources): { tables: Record<string, string>; problems: string[] } {
  const settings = settingsTable(sources);
  return {
    tables: {
      "api-routes": apiRouteTables(sources.openapi),
      "worker-settings": settings.markdown,
      "worker-bindings": bindingsTable(sources.wranglerToml),
    },
    problems: settings.problems,
  };
}

/**
 * The pages (path → text) whose regions are out of date, with their text as it should be,
 * and what is wrong besides: a region no table fills, a table no page holds, a page that
 * cannot be read for its markers.
 */
export function refreshPages(
  pages: ReadonlyMap<string, string>,
  tables: Readonly<Record<string, string>>,
): { changed: Map<string, string>; problems: string[] } {
  const changed = new Map<string, string>();
  const problems: string[] = [];
  const placed = new Set<string>();
  for (const [path, text] of pages) {
    try {
      for (const name of unknownRegions(text, tables)) problems.push(`${path}: region ${name} is filled by no generated table`);
      for (const region of regionsOf(text)) placed.add(region.name);
      const fresh = fillRegions(text, tables);
      if (fresh !== text) changed.set(path, fresh);
    } catch (error) {
      problems.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  for (const name of Object.keys(tables)) {
    if (!placed.has(name)) problems.push(`no page holds the table ${name} (a <!-- generated:${name} --> … <!-- /generated --> region)`);
  }
  return { changed, problems };
}

/** Which regions of a page differ from what the generator writes. */
export function staleRegions(page: string, tables: Readonly<Record<string, string>>): string[] {
  const fresh = new Map(regionsOf(fillRegions(page, tables)).map((r) => [r.name, r.body]));
  return regionsOf(page)
    .filter((r) => fresh.get(r.name) !== r.body)
    .map((r) => r.name);
}

/**
 * The relative links of the pages (paths from the repository root) that point at no file,
 * or at a heading the Markdown page they name does not have.
 *
 * @param exists whether a path from the repository root is a file or folder
 * @param read a Markdown page's text, for its headings
 */
export function brokenLinks(pages: ReadonlyMap<string, string>, exists: (path: string) => boolean, read: (path: string) => string): string[] {
  const broken: string[] = [];
  for (const [page, text] of pages) {
    for (const link of relativeLinks(text)) {
      const target = link.path === "" ? page : posix.normalize(posix.join(posix.dirname(page), link.path));
      const where = `${page}:${link.line}: ${link.path}${link.fragment === null ? "" : `#${link.fragment}`}`;
      if (target.startsWith("../") || !exists(target)) {
        broken.push(`${where} points at no file`);
      } else if (link.fragment && target.endsWith(".md") && !headingAnchors(pages.get(target) ?? read(target)).includes(link.fragment)) {
        broken.push(`${where}: ${target} has no heading #${link.fragment}`);
      }
    }
  }
  return broken;
}
