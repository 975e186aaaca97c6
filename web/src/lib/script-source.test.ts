import { describe, expect, it } from "vitest";
import { highlightedLines, splitHighlighted } from "./script-source";
import { sourceLines } from "./scripts";

/** Text of a highlighted line as the reader sees it. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, "")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#x27;", "'")
    .replaceAll("&amp;", "&");

/** Whether every opened span is closed within the line. */
const balanced = (html: string) => (html.match(/<span/g) ?? []).length === (html.match(/<\/span>/g) ?? []).length;

describe("script source lines", () => {
  it("UI-020: numbers a file as an editor does: a final newline starts no empty line", () => {
    expect(sourceLines("a = 1\nb = 2\n")).toEqual(["a = 1", "b = 2"]);
    expect(sourceLines("a = 1\n\nb = 2")).toEqual(["a = 1", "", "b = 2"]);
    expect(sourceLines("x\r\ny")).toEqual(["x", "y"]);
    expect(sourceLines("")).toEqual([""]);
  });

  it("UI-020: highlights Python line by line, one line per source line, each line's spans balanced", () => {
    const source = 'import json\n\ndef main(n: int) -> str:\n    """Doc\n    over lines"""\n    return json.dumps({"n": n})  # <done>\n';
    const lines = highlightedLines(source);
    expect(lines).toHaveLength(6);
    expect(lines.map(text)).toEqual(sourceLines(source));
    for (const line of lines) expect(balanced(line)).toBe(true);
    expect(lines[0]).toContain('<span class="hljs-keyword">import</span>');
    expect(lines[2]).toContain('<span class="hljs-title function_">main</span>');
    // The docstring is a string on both of its lines.
    expect(lines[3]).toMatch(/^ {4}<span class="hljs-string">&quot;&quot;&quot;Doc<\/span>$/);
    expect(lines[4]).toMatch(/^<span class="hljs-string"> {4}over lines&quot;&quot;&quot;<\/span>$/);
    expect(lines[5]).toContain('<span class="hljs-comment"># &lt;done&gt;</span>');
    expect(highlightedLines('print("<b>")')[0]).toContain("&lt;b&gt;");
  });

  it("UI-020: a span spread over lines is closed and reopened on each, nested ones too", () => {
    expect(splitHighlighted('<span class="a">x<span class="b">1\n2</span>\ny</span>z')).toEqual([
      '<span class="a">x<span class="b">1</span></span>',
      '<span class="a"><span class="b">2</span></span>',
      '<span class="a">y</span>z',
    ]);
  });
});
