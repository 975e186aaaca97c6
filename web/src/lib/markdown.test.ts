import { describe, expect, it } from "vitest";
import { renderMarkdown } from "./markdown";

describe("renderMarkdown", () => {
  it("UI-CONV: raw HTML is shown as text, never as markup (script, img onerror, inline handlers)", () => {
    const html = renderMarkdown('<script>alert(1)</script>\n\n<img src=x onerror="alert(2)"> and <a href="#" onclick="steal()">x</a>');
    expect(html).not.toMatch(/<script|<img|<a /i);
    // No element carries an event handler: the only tags are markdown-it's own.
    expect(html).not.toMatch(/<[^>]*\son\w+=/i);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
  });

  it("UI-CONV: javascript:, vbscript: and data: links are not made links; http(s) links open in a new tab without an opener", () => {
    for (const href of ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "javascript&#58;alert(1)", "vbscript:msgbox(1)", "data:text/html;base64,PHNjcmlwdD4="]) {
      const html = renderMarkdown(`[click](${href})`);
      expect(html, href).not.toContain("<a");
      expect(html, href).not.toMatch(/href=/);
    }
    expect(renderMarkdown("<javascript:alert(1)>")).not.toContain("<a");
    expect(renderMarkdown("[docs](https://example.com/a?b=1&c=2)")).toBe(
      '<p><a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">docs</a></p>',
    );
    expect(renderMarkdown("see https://example.com now")).toContain(
      '<a href="https://example.com" target="_blank" rel="noopener noreferrer">https://example.com</a>',
    );
  });

  it("UI-CONV: images are not loaded (no request to an address a reply chooses)", () => {
    const html = renderMarkdown("![pixel](https://tracker.test/p.png?q=secret)");
    expect(html).not.toContain("<img");
  });

  it("UI-CONV: fenced code in a registered language is highlighted and escaped; other languages stay plain, escaped", () => {
    const ts = renderMarkdown('```ts\nconst a: string = "<b>";\n```');
    expect(ts).toContain('<pre><code class="language-ts">');
    expect(ts).toContain('<span class="hljs-keyword">const</span>');
    expect(ts).toContain("&lt;b&gt;");
    const other = renderMarkdown("```cobol\n<script>x</script>\n```");
    expect(other).toBe('<pre><code class="language-cobol">&lt;script&gt;x&lt;/script&gt;\n</code></pre>');
  });

  it("UI-CONV: chat conventions: single newlines break the line, tables and quotes render", () => {
    expect(renderMarkdown("one\ntwo")).toBe("<p>one<br>\ntwo</p>");
    expect(renderMarkdown("| a | b |\n|---|---|\n| 1 | 2 |")).toContain("<table>");
    expect(renderMarkdown("> quoted")).toContain("<blockquote>");
  });

  it("UI-CONV: @mentions of the given agents are marked, not inside code, and stay escaped", () => {
    expect(renderMarkdown("hi @scout <x>", { mentions: ["Scout"] })).toBe('<p>hi <mark class="mention">@scout</mark> &lt;x&gt;</p>');
    expect(renderMarkdown("`@Scout`", { mentions: ["Scout"] })).toBe("<p><code>@Scout</code></p>");
    expect(renderMarkdown("hi @Scout")).toBe("<p>hi @Scout</p>");
  });
});
