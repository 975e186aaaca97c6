/** @mentions of agent names in chat text: highlighting them, and inserting one; pure. */
import { findMentions } from "../../../core/shared/mentions";

export interface TextPart {
  text: string;
  /** The agent name this part mentions, as the guild spells it. */
  mention?: string;
}

/**
 * The text cut into plain parts and `@Name` mentions of the given agent names, by the
 * server's own reading of tags.
 *
 * @example mentionParts("hi @scout!", ["Scout"]) // [{text:"hi "}, {text:"@scout", mention:"Scout"}, {text:"!"}]
 */
export function mentionParts(content: string, names: string[]): TextPart[] {
  const parts: TextPart[] = [];
  let plain = 0;
  for (const m of findMentions(content, names)) {
    if (m.start > plain) parts.push({ text: content.slice(plain, m.start) });
    parts.push({ text: content.slice(m.start, m.end), mention: m.name });
    plain = m.end;
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
