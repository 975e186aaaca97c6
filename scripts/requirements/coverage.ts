/**
 * Requirement coverage: which test titles name which requirement IDs of the specification's
 * requirement list. Pure functions over text, so the generator and its tests share them.
 */

/** One `- ID: statement` item of the requirement list. */
export interface Requirement {
  id: string;
  section: string;
  statement: string;
  openPoint: boolean;
}

/** One `it(` / `test(` / `describe(` title of a test file. */
export interface TestTitle {
  file: string;
  line: number;
  title: string;
  ids: string[];
}

const ITEM = /^- ((?:OP-)?([A-Z]+)-\d+): (.*)$/;

/** Reads every requirement and open point from the list, in document order. */
export function parseRequirements(markdown: string): Requirement[] {
  const items: Requirement[] = [];
  for (const line of markdown.split("\n")) {
    const match = ITEM.exec(line);
    if (!match) continue;
    const [, id, section, statement] = match as unknown as [string, string, string, string];
    items.push({ id, section, statement: statement.replace(/\s*\[src: [^\]]*\]\s*$/, ""), openPoint: id.startsWith("OP-") });
  }
  return items;
}

/**
 * The IDs a title names, for the given section prefixes. Shorthands expand:
 * `SCHED-014/016` is SCHED-014 and SCHED-016, `SCHED-013..019` the seven between,
 * `OP-SCHED-7` an open point.
 *
 * @example idsInTitle("SCHED-014/016 and GEN-002..004", ["SCHED", "GEN"])
 *   // ["SCHED-014", "SCHED-016", "GEN-002", "GEN-003", "GEN-004"]
 */
export function idsInTitle(title: string, sections: readonly string[]): string[] {
  const prefixes = sections.join("|");
  const pattern = new RegExp(`(?<![\\w-])(OP-)?(${prefixes})-(\\d+)((?:(?:/|\\.\\.)\\d+)*)(?![\\w-])`, "g");
  const ids: string[] = [];
  for (const match of title.matchAll(pattern)) {
    const [, op = "", section, first, tail = ""] = match as unknown as [string, string | undefined, string, string, string | undefined];
    const width = first.length;
    const name = (n: number) => `${op}${section}-${String(n).padStart(width, "0")}`;
    let previous = Number(first);
    ids.push(name(previous));
    for (const [, separator, digits] of tail.matchAll(/(\/|\.\.)(\d+)/g) as IterableIterator<[string, string, string]>) {
      const next = Number(digits);
      if (separator === "..") for (let n = previous + 1; n < next; n++) ids.push(name(n));
      ids.push(name(next));
      previous = next;
    }
  }
  return [...new Set(ids)];
}

// A test function call (`it.each(cases)(` included) followed by its string literal title.
const TITLE = /\b(?:it|test|describe)(?:\.\w+)*(?:\([^()]*\))?\(\s*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`)/g;

/** Every titled `it(`, `test(` and `describe(` of one test file's source. */
export function titlesInSource(file: string, source: string, sections: readonly string[]): TestTitle[] {
  const titles: TestTitle[] = [];
  for (const match of source.matchAll(TITLE)) {
    const title = (match[1] ?? match[2] ?? match[3] ?? "").replace(/\s+/g, " ").trim();
    const line = source.slice(0, match.index).split("\n").length;
    titles.push({ file, line, title, ids: idsInTitle(title, sections) });
  }
  return titles;
}

/** A title naming an ID the requirement list does not have. */
export interface UnknownId {
  id: string;
  test: TestTitle;
}

export function unknownIds(requirements: Requirement[], titles: TestTitle[]): UnknownId[] {
  const known = new Set(requirements.map((r) => r.id));
  return titles.flatMap((test) => test.ids.filter((id) => !known.has(id)).map((id) => ({ id, test })));
}

/** The section prefixes of the list (RUN, GEN, …), in document order. */
export function sectionsOf(requirements: Requirement[]): string[] {
  return [...new Set(requirements.map((r) => r.section))];
}
