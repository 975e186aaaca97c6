/**
 * A script's source as numbered, highlighted lines (UI-020). Only highlight.js's core and
 * its Python grammar are loaded: scripts are Python (SCRIPT-011), and the core is shared
 * with the chat's Markdown chunk. Pure: no DOM; the console inserts the returned HTML.
 */
import hljs from "highlight.js/lib/core";
import python from "highlight.js/lib/languages/python";
import { sourceLines } from "./scripts";

if (!hljs.getLanguage("python")) hljs.registerLanguage("python", python);

const TOKEN = /<span class="[^"]*">|<\/span>|\r?\n|[^<\r\n]+|</g;

/**
 * Highlighted HTML split into lines, each closing the spans it opened and reopening the
 * ones a token carried over (a triple-quoted string over three lines stays a string on each),
 * so every line stands alone in its own element.
 *
 * @example splitHighlighted('<span class="hljs-string">"""a\nb"""</span>')
 *          // ['<span class="hljs-string">"""a</span>', '<span class="hljs-string">b"""</span>']
 */
export function splitHighlighted(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let line = "";
  for (const [token] of html.matchAll(TOKEN)) {
    if (token === "\n" || token === "\r\n") {
      lines.push(line + "</span>".repeat(open.length));
      line = open.join("");
    } else if (token === "</span>") {
      open.pop();
      line += token;
    } else if (token.startsWith("<span")) {
      open.push(token);
      line += token;
    } else {
      line += token;
    }
  }
  lines.push(line + "</span>".repeat(open.length));
  return lines;
}

/**
 * The source as highlighted Python HTML, one string per line (as many as `sourceLines`).
 *
 * @example highlightedLines("x = 'a'") // ['x = <span class="hljs-string">&#x27;a&#x27;</span>']
 */
export function highlightedLines(source: string): string[] {
  const count = sourceLines(source).length;
  const html = hljs.highlight(source, { language: "python", ignoreIllegals: true }).value;
  return splitHighlighted(html).slice(0, count);
}
