/** The task commands' arguments as guilds-code accepts them (anything else is a usage error). */

/** A branch name git accepts, without the forms that need care (`..`, `@{`, `.lock`, leading `-`). */
export const BRANCH_NAME = /^(?![-/.])(?!.*(?:\.\.|\/\/|@\{|\/\.|\.lock(?:\/|$)))[A-Za-z0-9._/-]{1,200}(?<![./])$/;
/** An absolute, normalised folder other than the root. */
export const ABSOLUTE_DIR = /^(?!.*\/\.{1,2}(?:\/|$))(?!.*\/\/)\/[^\0\n\r]*[^/\0\n\r]$/;
/** The gateway's http(s) address (file:// in tests). */
export const REMOTE_URL = /^(?:https?|file):\/\/[^\s\0]+$/;
