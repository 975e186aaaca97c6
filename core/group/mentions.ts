/**
 * `@Name` tags in a group post. An agent is tagged when `@` is followed by its name
 * (case-insensitive) and the name is not followed by another name character, so
 * `@Scout` tags Scout but not Scouter. Names may contain spaces; the longest match wins,
 * so with agents "Ann" and "Ann Lee", `@Ann Lee` tags only Ann Lee.
 *
 * @example taggedAgents("thanks @scout!", [{ id: "a1", name: "Scout" }]) // ["a1"]
 */
export function taggedAgents(content: string, agents: readonly { id: string; name: string }[]): string[] {
  const byLength = [...agents].sort((a, b) => b.name.length - a.name.length);
  const lower = content.toLowerCase();
  const found = new Set<string>();
  for (let at = lower.indexOf("@"); at !== -1; at = lower.indexOf("@", at + 1)) {
    if (at > 0 && NAME_CHAR.test(lower[at - 1]!)) continue; // an e-mail address, not a tag
    const rest = lower.slice(at + 1);
    const agent = byLength.find((a) => {
      const name = a.name.toLowerCase();
      return name.length > 0 && rest.startsWith(name) && !NAME_CHAR.test(rest[name.length] ?? " ");
    });
    if (agent) found.add(agent.id);
  }
  return [...found];
}

const NAME_CHAR = /[\p{L}\p{N}_-]/u;
