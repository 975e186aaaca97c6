/** @mentions of agent names in chat text: highlighting them, and inserting one; pure. */

export interface TextPart {
  text: string;
  /** The agent name this part mentions, as the guild spells it. */
  mention?: string;
}

/** A character that continues a name (as the server reads tags): `@Scout` is not in `@Scouter` or `@Scout-2`. */
const WORD = /[\p{L}\p{N}_-]/u;

/**
 * The text cut into plain parts and `@Name` mentions of the given agent names
 * (case-insensitive, the longest name first, not inside a word or an e-mail address).
 *
 * @example mentionParts("hi @scout!", ["Scout"]) // [{text:"hi "}, {text:"@scout", mention:"Scout"}, {text:"!"}]
 */
export function mentionParts(content: string, names: string[]): TextPart[] {
  const sorted = [...new Set(names.filter(Boolean))].sort((a, b) => b.length - a.length);
  const lower = content.toLowerCase();
  const parts: TextPart[] = [];
  let plain = 0;
  for (let i = content.indexOf("@"); i !== -1; i = content.indexOf("@", i + 1)) {
    if (i > 0 && WORD.test(content[i - 1]!)) continue;
    const name = sorted.find((n) => lower.startsWith(n.toLowerCase(), i + 1) && !WORD.test(content[i + 1 + n.length] ?? ""));
    if (!name) continue;
    if (i > plain) parts.push({ text: content.slice(plain, i) });
    parts.push({ text: content.slice(i, i + 1 + name.length), mention: name });
    plain = i + 1 + name.length;
    i = plain - 1;
  }
  if (plain < content.length) parts.push({ text: content.slice(plain) });
  return parts;
}

/**
 * `@Name ` inserted at the caret (with a space before it when it would touch a word),
 * and where the caret goes after it.
 *
 * @example insertMention("Hello", 5, "Scout") // { text: "Hello @Scout ", caret: 13 }
 */
export function insertMention(text: string, caret: number, name: string): { text: string; caret: number } {
  const at = Math.max(0, Math.min(caret, text.length));
  const before = text.slice(0, at);
  const after = text.slice(at);
  const lead = before === "" || /\s$/.test(before) ? "" : " ";
  const tail = after.startsWith(" ") ? "" : " ";
  const inserted = `${lead}@${name}${tail}`;
  return { text: before + inserted + after, caret: at + inserted.length };
}
