/**
 * Generated regions of a Markdown page: the lines between `<!-- generated:<name> -->` and
 * `<!-- /generated -->` belong to the generator (`npm run docs`); everything else is prose.
 * Pure functions over text.
 */

const OPEN = /^<!-- generated:([a-z0-9-]+) -->$/;
const CLOSE = "<!-- /generated -->";

/** One region of a page: its name and the text between its markers (without them). */
export interface Region {
  name: string;
  body: string;
}

/**
 * The page's regions in order. Throws on a region left open, a close without an open, or
 * a region opened inside another.
 *
 * @example regionsOf("a\n<!-- generated:t -->\nold\n<!-- /generated -->\n") // [{ name: "t", body: "old\n" }]
 */
export function regionsOf(page: string): Region[] {
  const regions: Region[] = [];
  let open: { name: string; lines: string[] } | null = null;
  for (const [index, line] of page.split("\n").entries()) {
    const opening = OPEN.exec(line.trim());
    if (opening) {
      if (open) throw new Error(`line ${index + 1}: region ${opening[1]} opens inside region ${open.name}`);
      open = { name: opening[1]!, lines: [] };
    } else if (line.trim() === CLOSE) {
      if (!open) throw new Error(`line ${index + 1}: ${CLOSE} closes no region`);
      regions.push({ name: open.name, body: open.lines.map((l) => `${l}\n`).join("") });
      open = null;
    } else {
      open?.lines.push(line);
    }
  }
  if (open) throw new Error(`region ${open.name} is never closed with ${CLOSE}`);
  return regions;
}

/**
 * The page with each region's body replaced by its table, a blank line either side of it.
 * Regions without a table are left as they are (see `unknownRegions`).
 *
 * @example fillRegions(page, { "api-routes": "| a |\n" })
 */
export function fillRegions(page: string, tables: Readonly<Record<string, string>>): string {
  regionsOf(page); // refuses a malformed page before rewriting it
  const out: string[] = [];
  let skipping = false;
  for (const line of page.split("\n")) {
    const opening = OPEN.exec(line.trim());
    if (opening && tables[opening[1]!] !== undefined) {
      out.push(line, "", ...tables[opening[1]!]!.trimEnd().split("\n"), "");
      skipping = true;
    } else if (line.trim() === CLOSE && skipping) {
      out.push(line);
      skipping = false;
    } else if (!skipping) {
      out.push(line);
    }
  }
  return out.join("\n");
}

/** Names of the page's regions that no table fills. */
export function unknownRegions(page: string, tables: Readonly<Record<string, string>>): string[] {
  return regionsOf(page)
    .map((r) => r.name)
    .filter((name) => tables[name] === undefined);
}
