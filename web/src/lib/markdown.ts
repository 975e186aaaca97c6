/**
 * Chat text as Markdown, the way chat applications show it: paragraphs, lists, tables,
 * quotes, fenced code highlighted, bare URLs linked, single newlines kept. Safe by
 * construction: raw HTML is escaped (`html: false`), markdown-it's link check drops
 * `javascript:`/`vbscript:`/`file:`/`data:` URLs, and images are off so a reply cannot
 * make the browser fetch an address of its choosing (a known way to leak a transcript).
 * Pure: no DOM; the console inserts the returned HTML.
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import diff from "highlight.js/lib/languages/diff";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import MarkdownIt from "markdown-it";
import { mentionParts } from "./mentions";

// A handful of languages keeps the console small; others show as plain (escaped) code.
for (const [name, language] of Object.entries({ bash, diff, javascript, json, python, sql, typescript })) {
  hljs.registerLanguage(name, language);
}
hljs.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["patch"], { languageName: "diff" });

/** Highlighted HTML of a fenced block in a registered language; "" lets markdown-it escape it as is. */
function highlight(code: string, language: string): string {
  if (!language || !hljs.getLanguage(language)) return "";
  try {
    return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    return "";
  }
}

const md = new MarkdownIt({ html: false, linkify: true, breaks: true, highlight });
md.disable("image");

// Links leave the console in a new tab, with no window.opener and no Referer.
md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx]!;
  token.attrSet("target", "_blank");
  token.attrSet("rel", "noopener noreferrer");
  return self.renderToken(tokens, idx, options);
};

/** Options of one rendering. */
export interface MarkdownEnv {
  /** Agent names whose `@Name` mentions are marked (the group chat). */
  mentions?: string[];
}

// Mentions are cut out of text tokens only, so an `@Name` inside code stays as written.
md.core.ruler.push("mentions", (state) => {
  const names = (state.env as MarkdownEnv).mentions;
  if (!names?.length) return;
  for (const block of state.tokens) {
    if (block.type !== "inline" || !block.children) continue;
    block.children = block.children.flatMap((token) => {
      if (token.type !== "text") return [token];
      return mentionParts(token.content, names).map((part) => {
        const piece = new state.Token(part.mention ? "mention" : "text", "", 0);
        piece.content = part.text;
        return piece;
      });
    });
  }
});
md.renderer.rules.mention = (tokens, idx) => `<mark class="mention">${md.utils.escapeHtml(tokens[idx]!.content)}</mark>`;

/**
 * The HTML of a chat message's Markdown.
 *
 * @example renderMarkdown("**hi** <b>") // "<p><strong>hi</strong> &lt;b&gt;</p>"
 */
export function renderMarkdown(text: string, env: MarkdownEnv = {}): string {
  // Without the closing newline, a message's text content ends where its text does.
  return md.render(text, { ...env }).trimEnd();
}
