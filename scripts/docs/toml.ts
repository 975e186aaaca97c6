/**
 * A small scanner of wrangler.toml, enough for the docs' tables: each table's header and its
 * `key = value` lines, with the comment lines just above each key. Not a TOML parser (the
 * project has none, see scripts/containers/wrangler-images.ts): values stay as written,
 * and only one-line values are read.
 */

export interface TomlEntry {
  key: string;
  /** The value as written (`"1048576"`, `{ limit = 5000, period = 10 }`). */
  raw: string;
  /** The comment lines right above the key, without `#`, joined with spaces. */
  comment: string;
}

export interface TomlTable {
  /** `vars`, `env.staging.vars`, `r2_buckets`…; "" for the keys before the first header. */
  header: string;
  /** Declared with `[[…]]`: one element of an array of tables. */
  array: boolean;
  entries: TomlEntry[];
}

/**
 * @example tomlTables('[vars]\n# Most routines.\nMAX = "20"\n')
 *   // [{ header: "", array: false, entries: [] }, { header: "vars", array: false, entries: [{ key: "MAX", raw: '"20"', comment: "Most routines." }] }]
 */
export function tomlTables(text: string): TomlTable[] {
  const tables: TomlTable[] = [{ header: "", array: false, entries: [] }];
  let comment: string[] = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    const header = /^(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(trimmed);
    if (header) {
      tables.push({ header: header[2]!, array: header[1] === "[[", entries: [] });
      comment = [];
    } else if (trimmed.startsWith("#")) {
      comment.push(trimmed.replace(/^#+\s?/, ""));
    } else if (trimmed === "") {
      comment = [];
    } else {
      const entry = /^([A-Za-z0-9_.-]+|"[^"]*")\s*=\s*(.*?)\s*$/.exec(trimmed);
      if (entry) tables.at(-1)!.entries.push({ key: entry[1]!.replace(/^"|"$/g, ""), raw: stripComment(entry[2]!), comment: comment.join(" ") });
      comment = [];
    }
  }
  return tables;
}

/** A value without a trailing `# comment` (outside a string). */
function stripComment(raw: string): string {
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === '"' && raw[i - 1] !== "\\") quoted = !quoted;
    else if (raw[i] === "#" && !quoted) return raw.slice(0, i).trimEnd();
  }
  return raw;
}

/**
 * A string value without its quotes; other values as written.
 *
 * @example unquote('"guilds-attachments"') // "guilds-attachments"
 */
export function unquote(raw: string): string {
  const match = /^"((?:[^"\\]|\\.)*)"$/.exec(raw);
  return match ? match[1]!.replace(/\\(.)/g, "$1") : raw;
}

/** The value of `key` in a table, unquoted, or undefined. */
export function tableValue(table: TomlTable, key: string): string | undefined {
  const entry = table.entries.find((e) => e.key === key);
  return entry ? unquote(entry.raw) : undefined;
}

/**
 * The environments a config declares (`[env.<name>]` and its sub-tables), in order.
 *
 * @example environments(tomlTables("[env.staging]\n[env.production.vars]\n")) // ["staging", "production"]
 */
export function environments(tables: readonly TomlTable[]): string[] {
  return [...new Set(tables.flatMap((t) => /^env\.([^.]+)/.exec(t.header)?.[1] ?? []))];
}
