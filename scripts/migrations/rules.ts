/**
 * What one migration statement does to the version still serving: the deploy migrates before
 * the new Worker serves, and a gradual rollout keeps the old version on part of the traffic, so
 * a statement is safe only if the old version's queries still work after it.
 * See docs/decisions/0024-safe-migrations.md for the rule and the expand/contract recipe.
 */
import { type Statement, scanSql, type Token } from "./scan";

export type Rule =
  | "drop-object"
  | "drop-column"
  | "rename"
  | "set-schema"
  | "type-change"
  | "not-null-without-default"
  | "set-not-null"
  | "drop-default"
  | "drop-identity"
  | "truncate"
  | "delete-all"
  | "dynamic-sql"
  /** Decided by the migration as a whole (scripts/migrations/check.ts). */
  | "drop-constraint"
  | "drop-unique-index";

/** A statement the old version may fail on, unless its migration is a contract step. */
export interface Destructive {
  type: "destructive";
  rule: Rule;
  line: number;
  statement: string;
  /** What it does, e.g. `drops column "name" of "agents"`. */
  what: string;
  /** The table it changes, when a table created in the same migration would make it harmless. */
  table?: string;
}

/** Effects whose safety depends on the rest of the migration or on earlier ones. */
export type Effect =
  | Destructive
  | { type: "drop-index"; names: string[]; line: number; statement: string }
  | { type: "drop-constraint"; table: string; name: string; line: number; statement: string }
  | { type: "add-constraint"; table: string; name: string }
  | { type: "create-table"; name: string }
  | { type: "create-unique-index"; name: string };

const is = (t: Token | undefined, ...words: string[]) => t?.kind === "word" && words.includes(t.upper);
const quote = (name: string) => `"${name}"`;

/** An identifier's value: quoted as written, unquoted folded to lower case (as PostgreSQL does). */
function nameOf(t: Token | undefined): string {
  if (!t) return "?";
  return t.kind === "ident" ? t.text : t.text.toLowerCase();
}

/** Reads a possibly schema-qualified name at `i`; returns its last part and the index after it. */
function qualifiedName(tokens: Token[], i: number): [string, number] {
  let name = nameOf(tokens[i]);
  let k = i + 1;
  while (tokens[k]?.text === "." && tokens[k + 1]) {
    name = nameOf(tokens[k + 1]);
    k += 2;
  }
  return [name, k];
}

function skipWords(tokens: Token[], i: number, ...sequence: string[]): number {
  return sequence.every((w, n) => is(tokens[i + n], w)) ? i + sequence.length : i;
}

/** Splits tokens at commas outside parentheses (ALTER TABLE's list of actions). */
function splitTopLevel(tokens: Token[]): Token[][] {
  const parts: Token[][] = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (t.text === "(" && t.kind === "punct") depth++;
    if (t.text === ")" && t.kind === "punct") depth--;
    if (t.text === "," && t.kind === "punct" && depth === 0) parts.push([]);
    else parts.at(-1)!.push(t);
  }
  return parts.filter((p) => p.length > 0);
}

/** The tokens outside parentheses (a statement's own clauses, not those of its subqueries). */
function topLevel(tokens: Token[]): Token[] {
  let depth = 0;
  return tokens.filter((t) => {
    if (t.kind === "punct" && t.text === "(") depth++;
    const outside = depth === 0;
    if (t.kind === "punct" && t.text === ")") depth--;
    return outside;
  });
}

/** Finds `words` in sequence anywhere in `tokens`. */
function hasSequence(tokens: Token[], ...words: string[]): boolean {
  return tokens.some((_, i) => words.every((w, n) => is(tokens[i + n], w)));
}

const DROPPABLE_WITHOUT_HARM = new Set(["INDEX"]);
const SERIAL_TYPES = new Set(["SERIAL", "BIGSERIAL", "SMALLSERIAL", "SERIAL2", "SERIAL4", "SERIAL8"]);
const CONSTRAINT_STARTS = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN", "EXCLUDE"];

/**
 * The effects of one statement (nothing for one that only adds or changes data).
 *
 * @example classify(scanSql('ALTER TABLE "a" DROP COLUMN "b"').statements[0]!)[0]!.type // "destructive"
 */
export function classify(statement: Statement): Effect[] {
  const t = statement.tokens;
  const at = (line: number, rule: Rule, what: string, table?: string): Destructive => ({
    type: "destructive",
    rule,
    line,
    statement: statement.text,
    what,
    ...(table === undefined ? {} : { table }),
  });

  if (is(t[0], "DROP")) {
    const kind = is(t[1], "MATERIALIZED", "FOREIGN") ? `${t[1]!.upper} ${t[2]?.upper ?? ""}` : (t[1]?.upper ?? "");
    if (DROPPABLE_WITHOUT_HARM.has(kind)) {
      let k = skipWords(t, 2, "CONCURRENTLY");
      k = skipWords(t, k, "IF", "EXISTS");
      const names = splitTopLevel(t.slice(k).filter((x) => !is(x, "CASCADE", "RESTRICT"))).map((part) => qualifiedName(part, 0)[0]);
      return [{ type: "drop-index", names, line: statement.line, statement: statement.text }];
    }
    return [at(statement.line, "drop-object", `drops ${kind.toLowerCase()} ${statementSubject(t, kind.split(" ").length + 1)}`)];
  }
  if (is(t[0], "TRUNCATE")) return [at(statement.line, "truncate", "empties a table the old version reads")];
  if (is(t[0], "DELETE") && is(t[1], "FROM") && !topLevel(t).some((x) => is(x, "WHERE"))) {
    return [at(statement.line, "delete-all", `deletes every row of ${quote(qualifiedName(t, skipWords(t, 2, "ONLY"))[0])}`)];
  }
  if (is(t[0], "ALTER") && is(t[1], "TABLE")) return alterTable(statement, at);
  if (is(t[0], "ALTER")) return alterOther(statement, at);
  if (is(t[0], "CREATE")) return create(t);
  if (is(t[0], "DO")) return doBlock(statement);
  return [];
}

function statementSubject(t: Token[], from: number): string {
  const k = skipWords(t, from, "IF", "EXISTS");
  return quote(qualifiedName(t, k)[0]);
}

function create(t: Token[]): Effect[] {
  let k = skipWords(t, 1, "OR", "REPLACE");
  k = skipWords(t, k, "UNLOGGED");
  k = skipWords(t, k, "TEMPORARY");
  k = skipWords(t, k, "TEMP");
  if (is(t[k], "TABLE")) {
    const after = skipWords(t, k + 1, "IF", "NOT", "EXISTS");
    return [{ type: "create-table", name: qualifiedName(t, after)[0] }];
  }
  if (is(t[k], "UNIQUE") && is(t[k + 1], "INDEX")) {
    let after = skipWords(t, k + 2, "CONCURRENTLY");
    after = skipWords(t, after, "IF", "NOT", "EXISTS");
    return is(t[after], "ON") ? [] : [{ type: "create-unique-index", name: qualifiedName(t, after)[0] }];
  }
  return [];
}

type At = (line: number, rule: Rule, what: string, table?: string) => Destructive;

function alterTable(statement: Statement, at: At): Effect[] {
  const t = statement.tokens;
  let k = skipWords(t, 2, "IF", "EXISTS");
  k = skipWords(t, k, "ONLY");
  const [table, after] = qualifiedName(t, k);
  const rest = t.slice(t[after]?.text === "*" ? after + 1 : after);
  const effects: Effect[] = [];
  for (const a of splitTopLevel(rest)) {
    const line = a[0]!.line;
    if (is(a[0], "RENAME")) {
      if (is(a[1], "CONSTRAINT")) continue;
      if (is(a[1], "TO")) effects.push(at(line, "rename", `renames table ${quote(table)} to ${quote(nameOf(a[2]))}`, table));
      else {
        const c = is(a[1], "COLUMN") ? 2 : 1;
        effects.push(at(line, "rename", `renames column ${quote(nameOf(a[c]))} of ${quote(table)} to ${quote(nameOf(a[c + 2]))}`, table));
      }
    } else if (is(a[0], "SET") && is(a[1], "SCHEMA")) {
      effects.push(at(line, "set-schema", `moves table ${quote(table)} to schema ${quote(nameOf(a[2]))}`, table));
    } else if (is(a[0], "DROP") && is(a[1], "CONSTRAINT")) {
      const n = skipWords(a, 2, "IF", "EXISTS");
      effects.push({ type: "drop-constraint", table, name: nameOf(a[n]), line, statement: statement.text });
    } else if (is(a[0], "DROP")) {
      const n = skipWords(a, skipWords(a, 1, "COLUMN"), "IF", "EXISTS");
      effects.push(at(line, "drop-column", `drops column ${quote(nameOf(a[n]))} of ${quote(table)}`, table));
    } else if (is(a[0], "ALTER") && !is(a[1], "CONSTRAINT")) {
      const c = skipWords(a, 1, "COLUMN");
      const column = `column ${quote(nameOf(a[c]))} of ${quote(table)}`;
      const change = a.slice(c + 1);
      if (is(change[0], "TYPE") || hasSequence(change.slice(0, 3), "SET", "DATA", "TYPE")) {
        effects.push(at(line, "type-change", `changes the type of ${column}`, table));
      } else if (hasSequence(change.slice(0, 3), "SET", "NOT", "NULL")) {
        effects.push(at(line, "set-not-null", `makes ${column} NOT NULL`, table));
      } else if (hasSequence(change.slice(0, 2), "DROP", "DEFAULT")) {
        effects.push(at(line, "drop-default", `drops the default of ${column}`, table));
      } else if (hasSequence(change.slice(0, 2), "DROP", "IDENTITY")) {
        effects.push(at(line, "drop-identity", `drops the identity of ${column}`, table));
      }
    } else if (is(a[0], "ADD") && !is(a[1], ...CONSTRAINT_STARTS)) {
      const n = skipWords(a, skipWords(a, 1, "COLUMN"), "IF", "NOT", "EXISTS");
      // Anywhere in the definition: a CHECK (x IS NOT NULL) without a default fails the old inserts too.
      const definition = a.slice(n + 1);
      const required = hasSequence(definition, "NOT", "NULL") || hasSequence(definition, "PRIMARY", "KEY");
      const filled = definition.some((x) => is(x, "DEFAULT", "GENERATED") || SERIAL_TYPES.has(x.upper));
      if (required && !filled) {
        effects.push(at(line, "not-null-without-default", `adds NOT NULL column ${quote(nameOf(a[n]))} to ${quote(table)} without a DEFAULT`, table));
      }
    } else if (is(a[0], "ADD") && is(a[1], "CONSTRAINT")) {
      effects.push({ type: "add-constraint", table, name: nameOf(a[2]) });
    }
  }
  return effects;
}

const RENAMED_OR_MOVED_HARMLESSLY = new Set(["INDEX"]);

function alterOther(statement: Statement, at: At): Effect[] {
  const t = statement.tokens;
  const kind = is(t[1], "MATERIALIZED") ? "MATERIALIZED VIEW" : (t[1]?.upper ?? "");
  if (RENAMED_OR_MOVED_HARMLESSLY.has(kind)) return [];
  const subject = `${kind.toLowerCase()} ${statementSubject(t, kind.split(" ").length + 1)}`;
  if (hasSequence(t, "RENAME", "VALUE") || hasSequence(t, "RENAME", "ATTRIBUTE")) return [at(statement.line, "rename", `renames a value of ${subject}`)];
  if (hasSequence(t, "DROP", "ATTRIBUTE")) return [at(statement.line, "drop-column", `drops an attribute of ${subject}`)];
  if (hasSequence(t, "ALTER", "ATTRIBUTE") && t.some((x) => is(x, "TYPE")))
    return [at(statement.line, "type-change", `changes an attribute's type of ${subject}`)];
  if (hasSequence(t, "RENAME", "TO")) return [at(statement.line, "rename", `renames ${subject}`)];
  if (hasSequence(t, "SET", "SCHEMA")) return [at(statement.line, "set-schema", `moves ${subject} to another schema`)];
  return [];
}

/** Statement keywords a PL/pgSQL body's statements begin with, after BEGIN, THEN, ELSE or LOOP. */
const BODY_STARTERS = ["ALTER", "DROP", "TRUNCATE", "DELETE", "CREATE", "EXECUTE"];

/** A DO block runs its body now: its statements count as the migration's own. */
function doBlock(statement: Statement): Effect[] {
  const body = statement.tokens.find((x) => x.kind === "dollar" || x.kind === "string");
  if (!body) return [];
  const effects: Effect[] = [];
  for (const inner of scanSql(body.text, body.valueLine).statements) {
    const start = inner.tokens.findIndex((x) => is(x, ...BODY_STARTERS));
    if (start < 0) continue;
    const tokens = inner.tokens.slice(start);
    const text = inner.text.slice(inner.text.toUpperCase().indexOf(tokens[0]!.upper));
    if (is(tokens[0], "EXECUTE")) {
      effects.push({
        type: "destructive",
        rule: "dynamic-sql",
        line: tokens[0]!.line,
        statement: text,
        what: "runs SQL built at run time, which this check cannot read",
      });
      continue;
    }
    effects.push(...classify({ tokens, line: tokens[0]!.line, text }));
  }
  return effects;
}
