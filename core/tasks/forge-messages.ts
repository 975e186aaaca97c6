/**
 * What a task's agent reads when someone speaks to it on GitHub (issue 33): a review of its
 * pull request, a comment on a line of the diff, a comment in the conversation or on its
 * issue. Each message says who, what and where, then the text, then the link to it on
 * GitHub. Pure: no Workers API.
 */

/** GitHub's review states as a person reads them. */
const REVIEW_STATES: Record<string, string> = {
  approved: "approved",
  changes_requested: "changes requested",
  commented: "commented",
  dismissed: "dismissed",
};

/** Who caused an event: a login as GitHub spells it. */
const who = (login: string) => `@${login}`;

/** The text, then the link: what every message ends with. */
const quoted = (body: string, url: string) => [body.trim(), url].filter(Boolean).join("\n\n");

/**
 * Whether a submitted review has something for the agent: a verdict (approved, changes
 * requested) or a body. A bare "commented" review only wraps its line comments, which
 * arrive as review comments of their own.
 *
 * @example reviewSaysSomething("commented", "") // false
 */
export function reviewSaysSomething(state: string, body: string): boolean {
  return state === "approved" || state === "changes_requested" || body.trim() !== "";
}

/**
 * @example reviewMessage({ login: "alice", state: "changes_requested", body: "Rename it", url })
 * // "Review from @alice (changes requested) on the pull request:\n\nRename it\n\n<url>"
 */
export function reviewMessage(review: { login: string; state: string; body: string; url: string }): string {
  const state = REVIEW_STATES[review.state] ?? review.state.replaceAll("_", " ");
  return `Review from ${who(review.login)} (${state}) on the pull request:\n\n${quoted(review.body, review.url)}`;
}

/**
 * A comment on a line of the diff; an outdated one (no line) names the file only.
 *
 * @example reviewCommentMessage({ login: "alice", path: "src/app.ts", line: 12, body: "Off by one", url })
 * // "@alice commented on src/app.ts line 12:\n\nOff by one\n\n<url>"
 */
export function reviewCommentMessage(comment: { login: string; path: string; line: number | null; body: string; url: string }): string {
  const where = comment.line === null ? comment.path : `${comment.path} line ${comment.line}`;
  return `${who(comment.login)} commented on ${where}:\n\n${quoted(comment.body, comment.url)}`;
}

/**
 * A comment in a pull request's conversation, or on the issue a task came from.
 *
 * @example conversationMessage({ login: "alice", on: "the pull request", body: "Looks good", url })
 * // "@alice commented on the pull request:\n\nLooks good\n\n<url>"
 */
export function conversationMessage(comment: { login: string; on: string; body: string; url: string }): string {
  return `${who(comment.login)} commented on ${comment.on}:\n\n${quoted(comment.body, comment.url)}`;
}

/**
 * Whether a sender is an app rather than a person: GitHub's bots sign as `<slug>[bot]`. The
 * platform's own comments come back as deliveries; they instruct nothing.
 *
 * @example isBot("guilds-platform[bot]") // true
 */
export const isBot = (login: string) => login.toLowerCase().endsWith("[bot]");
