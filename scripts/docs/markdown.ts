/**
 * What the docs generator and its link check need of Markdown: table cells that cannot break
 * a table, the relative links of a page, and the anchors its headings get on GitHub. Pure.
 */

/**
 * Text made safe for one table cell: pipes escaped (code spans included, as GitHub's tables
 * need), angle brackets outside code spans as entities (a bare `<memory>` would be read as
 * HTML), line breaks as spaces.
 *
 * @example cell("the opening <memory> | `a|b`") // "the opening &lt;memory&gt; \\| `a\\|b`"
 */
export function cell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, " ")
    .trim()
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith("`") ? part : part.replaceAll("<", "&lt;").replaceAll(">", "&gt;")))
    .join("")
    .replaceAll("|", "\\|");
}

/** A link of a page to another file of the repository (or to a heading of its own). */
export interface RelativeLink {
  line: number;
  /** The path as written, without the fragment; empty for a link to the page's own heading. */
  path: string;
  /** The fragment without `#`, or null. */
  fragment: string | null;
}

const LINK = /!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/**
 * Every relative link and image of a page, outside fenced code blocks and code spans;
 * links with a scheme (`https:`, `mailto:`) are not relative.
 *
 * @example relativeLinks("See [the API](docs/api.md#runs) and [x](https://x.y).")
 *   // [{ line: 1, path: "docs/api.md", fragment: "runs" }]
 */
export function relativeLinks(page: string): RelativeLink[] {
  const links: RelativeLink[] = [];
  let fenced = false;
  for (const [index, raw] of page.split("\n").entries()) {
    if (/^\s*(```|~~~)/.test(raw)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const line = raw.replace(/`[^`]*`/g, "");
    for (const match of line.matchAll(LINK)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const hash = target.indexOf("#");
      links.push({
        line: index + 1,
        path: decodeURI(hash === -1 ? target : target.slice(0, hash)),
        fragment: hash === -1 ? null : target.slice(hash + 1),
      });
    }
  }
  return links;
}

/**
 * The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as
 * hyphens, a repeated one suffixed `-1`, `-2`…
 *
 * @example headingAnchors("# Two commands\n## Two commands\n### What if…") // ["two-commands", "two-commands-1", "what-if"]
 */
export function headingAnchors(page: string): string[] {
  const seen = new Map<string, number>();
  const anchors: string[] = [];
  let fenced = false;
  for (const line of page.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .toLowerCase();
    const slug = text.replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.push(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
