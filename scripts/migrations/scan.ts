/**
 * A small SQL lexer for migration files: enough of PostgreSQL's lexical rules to split a file
 * into statements and to know which words are keywords and which are inside a comment, a string
 * literal, a quoted identifier or a dollar-quoted body. Pure (no I/O), so the rules built on it
 * are tested on strings.
 */

export type TokenKind = "word" | "ident" | "string" | "dollar" | "number" | "punct";

export interface Token {
  kind: TokenKind;
  /** The source text (for a quoted identifier, string or dollar body: the value, unquoted). */
  text: string;
  /** Words upper-cased, quoted identifiers as written, so keywords compare by `upper`. */
  upper: string;
  line: number;
  /** Line of the value's first character (dollar bodies are lexed again from there). */
  valueLine: number;
}

export interface Comment {
  text: string;
  line: number;
}

export interface Statement {
  tokens: Token[];
  /** Line of the statement's first token (1-based). */
  line: number;
  /** The statement's source, whitespace collapsed, for messages. */
  text: string;
}

export interface Scan {
  statements: Statement[];
  comments: Comment[];
}

export class SqlScanError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
const DOLLAR_TAG = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/;

/**
 * Splits SQL into statements at top-level semicolons; comments are collected apart.
 * Throws SqlScanError on an unterminated comment, literal, identifier or dollar body.
 *
 * @example scanSql("SELECT ';'; -- a; comment\nDROP TABLE t").statements.length // 2
 */
export function scanSql(sql: string, firstLine = 1): Scan {
  const statements: Statement[] = [];
  const comments: Comment[] = [];
  let tokens: Token[] = [];
  let start = -1;
  let end = 0;
  let line = firstLine;
  let i = 0;

  const countLines = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (sql[k] === "\n") line++;
  };
  const flush = () => {
    if (tokens.length > 0) {
      const text = sql.slice(start, end).replace(/\s+/g, " ").trim();
      statements.push({ tokens, line: tokens[0]!.line, text });
    }
    tokens = [];
    start = -1;
  };
  const push = (kind: TokenKind, from: number, to: number, text: string, upper: string, startLine: number, valueLine = startLine) => {
    if (start < 0) start = from;
    end = to;
    tokens.push({ kind, text, upper, line: startLine, valueLine });
  };

  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    const startLine = line;
    if (c === "\n") {
      line++;
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === "-" && next === "-") {
      const stop = sql.indexOf("\n", i);
      const to = stop < 0 ? sql.length : stop;
      comments.push({ text: sql.slice(i + 2, to), line: startLine });
      i = to;
    } else if (c === "/" && next === "*") {
      // Block comments nest in PostgreSQL.
      let depth = 1;
      let k = i + 2;
      while (k < sql.length && depth > 0) {
        if (sql[k] === "/" && sql[k + 1] === "*") {
          depth++;
          k += 2;
        } else if (sql[k] === "*" && sql[k + 1] === "/") {
          depth--;
          k += 2;
        } else k++;
      }
      if (depth > 0) throw new SqlScanError("unterminated /* comment", startLine);
      comments.push({ text: sql.slice(i + 2, k - 2), line: startLine });
      countLines(i, k);
      i = k;
    } else if (c === "'") {
      const k = readQuoted(sql, i, "'", false);
      if (k < 0) throw new SqlScanError("unterminated string literal", startLine);
      push("string", i, k, sql.slice(i + 1, k - 1).replaceAll("''", "'"), "", startLine);
      countLines(i, k);
      i = k;
    } else if (c === '"') {
      const k = readQuoted(sql, i, '"', false);
      if (k < 0) throw new SqlScanError("unterminated quoted identifier", startLine);
      const name = sql.slice(i + 1, k - 1).replaceAll('""', '"');
      push("ident", i, k, name, name, startLine);
      countLines(i, k);
      i = k;
    } else if (c === "$" && DOLLAR_TAG.test(sql.slice(i, i + 64)) && !WORD_PART.test(sql[i - 1] ?? " ")) {
      const delimiter = DOLLAR_TAG.exec(sql.slice(i, i + 64))![0];
      const close = sql.indexOf(delimiter, i + delimiter.length);
      if (close < 0) throw new SqlScanError(`unterminated dollar-quoted body ${delimiter}`, startLine);
      const bodyStart = i + delimiter.length;
      const to = close + delimiter.length;
      countLines(i, bodyStart);
      const bodyLine = line;
      countLines(bodyStart, to);
      push("dollar", i, to, sql.slice(bodyStart, close), "", startLine, bodyLine);
      i = to;
    } else if (WORD_START.test(c)) {
      let k = i + 1;
      while (k < sql.length && WORD_PART.test(sql[k]!)) k++;
      const word = sql.slice(i, k);
      // E'…' strings take backslash escapes; the prefix is part of the literal, not a word.
      if (sql[k] === "'" && /^[eE]$/.test(word)) {
        const q = readQuoted(sql, k, "'", true);
        if (q < 0) throw new SqlScanError("unterminated string literal", startLine);
        push("string", i, q, sql.slice(k + 1, q - 1), "", startLine);
        countLines(i, q);
        i = q;
      } else {
        push("word", i, k, word, word.toUpperCase(), startLine);
        i = k;
      }
    } else if (/[0-9]/.test(c)) {
      let k = i + 1;
      while (k < sql.length && /[0-9.eE_]/.test(sql[k]!)) k++;
      push("number", i, k, sql.slice(i, k), sql.slice(i, k), startLine);
      i = k;
    } else if (c === ";") {
      flush();
      i++;
    } else {
      push("punct", i, i + 1, c, c, startLine);
      i++;
    }
  }
  flush();
  return { statements, comments };
}

/** Index just past the closing quote of the literal opening at `from`, or -1 if none. */
function readQuoted(sql: string, from: number, quote: string, backslashEscapes: boolean): number {
  let k = from + 1;
  while (k < sql.length) {
    const ch = sql[k]!;
    if (backslashEscapes && ch === "\\") k += 2;
    else if (ch === quote && sql[k + 1] === quote) k += 2;
    else if (ch === quote) return k + 1;
    else k++;
  }
  return -1;
}
