/**
 * `@Name` tags in a group post; the server tags with them and the console highlights them,
 * so both read them here. An agent is tagged when `@` is followed by its name
 * (case-insensitive) and the name is not followed by another name character, so
 * `@Scout` tags Scout but not Scouter. Names may contain spaces; the longest match wins,
 * so with agents "Ann" and "Ann Lee", `@Ann Lee` tags only Ann Lee. An `@` inside a word
 * (an e-mail address) is no tag.
 */

/** A character that continues a name. */
const NAME_CHAR = /[\p{L}\p{N}_-]/u;

/** One `@Name` in the text: `start` at the `@`, `end` after the name, `name` as the guild spells it. */
export interface Mention {
  start: number;
  end: number;
  name: string;
}

/**
 * @example findMentions("hi @scout!", ["Scout"]) // [{ start: 3, end: 9, name: "Scout" }]
 */
export function findMentions(content: string, names: readonly string[]): Mention[] {
  const longestFirst = [...new Set(names.filter(Boolean))].sort((a, b) => b.length - a.length);
  const lower = content.toLowerCase();
  const found: Mention[] = [];
  for (let at = content.indexOf("@"); at !== -1; at = content.indexOf("@", at + 1)) {
    if (at > 0 && NAME_CHAR.test(content[at - 1]!)) continue;
    const name = longestFirst.find((n) => lower.startsWith(n.toLowerCase(), at + 1) && !NAME_CHAR.test(content[at + 1 + n.length] ?? " "));
    if (!name) continue;
    found.push({ start: at, end: at + 1 + name.length, name });
    at += name.length;
  }
  return found;
}

/**
 * The ids of the agents a post tags, each once.
 *
 * @example taggedAgents("thanks @scout!", [{ id: "a1", name: "Scout" }]) // ["a1"]
 */
export function taggedAgents(content: string, agents: readonly { id: string; name: string }[]): string[] {
  const byName = new Map(agents.map((a) => [a.name, a.id]));
  return [
    ...new Set(
      findMentions(
        content,
        agents.map((a) => a.name),
      ).map((m) => byName.get(m.name)!),
    ),
  ];
}
