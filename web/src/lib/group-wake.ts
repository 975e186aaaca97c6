/**
 * The first user row of a group run: "Group Chat info" then JSON
 * `{latestMessage: {seq, author, text, at}, youWereTagged}`, read for display; pure.
 */

export interface GroupWake {
  latest: { seq: number | null; author: string; text: string; at: string | null } | null;
  tagged: boolean | null;
}

export const GROUP_WAKE_HEADING = "Group Chat info";

/**
 * The wake's fields, or null when the text is not such a wake or its JSON is unreadable
 * (the transcript then shows the text as it is).
 *
 * @example parseGroupWake('Group Chat info\n{"latestMessage":{"seq":3,"author":"Operator","text":"hi","at":"…"},"youWereTagged":true}')
 */
export function parseGroupWake(text: string): GroupWake | null {
  if (!text.trimStart().startsWith(GROUP_WAKE_HEADING)) return null;
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start === -1 || end < start) return null;
  let data: unknown;
  try {
    data = JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null) return null;
  const { latestMessage, youWereTagged } = data as { latestMessage?: unknown; youWereTagged?: unknown };
  let latest: GroupWake["latest"] = null;
  if (typeof latestMessage === "object" && latestMessage !== null) {
    const m = latestMessage as Record<string, unknown>;
    latest = {
      seq: typeof m.seq === "number" ? m.seq : null,
      author: typeof m.author === "string" ? m.author : "someone",
      text: typeof m.text === "string" ? m.text : "",
      at: typeof m.at === "string" ? m.at : null,
    };
  }
  return { latest, tagged: typeof youWereTagged === "boolean" ? youWereTagged : null };
}
