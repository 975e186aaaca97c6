/**
 * A webhook delivery's event name and JSON body read into the ForgeEvent the platform acts on
 * (webhook-event.ts), or why it is not acted on: a known event of a kind it does not act on is
 * `ignored` (kept, answered 200), an event the App does not subscribe to is `unknown` (answered
 * 204), and a body missing what its kind needs is `invalid`, naming the field (answered 400).
 * Pure: no Workers API.
 *
 * @example forgeEventOf("issue_comment", body) // { event: { kind: "issue_comment", number: 7, … } }
 */
import type { ChecksEvent, ForgeEvent, ForgeSender } from "./webhook-event";

export type Normalised = { event: ForgeEvent } | { ignored: string } | { unknown: true } | { invalid: string; message: string };

/** The events the App subscribes to, and those GitHub sends every App (ping, installation). */
const KNOWN = new Set([
  "ping",
  "installation",
  "installation_repositories",
  "installation_target",
  "github_app_authorization",
  "issues",
  "issue_comment",
  "pull_request",
  "pull_request_review",
  "pull_request_review_comment",
  "check_suite",
  "check_run",
]);

/** Which actions of each acted-on event the platform acts on. */
const ACTED: Record<string, ReadonlySet<string>> = {
  issues: new Set(["opened", "labeled", "edited"]),
  issue_comment: new Set(["created"]),
  pull_request_review: new Set(["submitted"]),
  pull_request_review_comment: new Set(["created"]),
  check_suite: new Set(["completed"]),
  check_run: new Set(["completed"]),
  pull_request: new Set(["closed"]),
};

/** A field of the body that is missing or of the wrong type: the door's 400 names it. */
class Missing extends Error {
  constructor(
    readonly field: string,
    what: string,
  ) {
    super(`${field} must be ${what}`);
  }
}

export function forgeEventOf(eventName: string, body: unknown): Normalised {
  if (!KNOWN.has(eventName)) return { unknown: true };
  const action = typeof (body as { action?: unknown } | null)?.action === "string" ? (body as { action: string }).action : null;
  const acted = ACTED[eventName];
  if (!acted) return { ignored: `${eventName} is not acted on` };
  if (action === null || !acted.has(action)) return { ignored: `${eventName}${action ? `.${action}` : ""} is not acted on` };
  try {
    return { event: read(eventName, action, new Reader(body)) };
  } catch (error) {
    if (error instanceof Missing) return { invalid: error.field, message: error.message };
    throw error;
  }
}

/**
 * What the deliveries list shows of any delivery, read leniently (nulls where absent): the
 * door records it even for events it does not act on.
 */
export function deliveryFacts(body: unknown): { action: string | null; repository: string | null; sender: string | null; installationId: number | null } {
  const r = new Reader(body);
  const str = (v: unknown) => (typeof v === "string" && v ? v : null);
  const id = r.get("installation.id");
  return {
    action: str(r.get("action")),
    repository: str(r.get("repository.full_name")),
    sender: str(r.get("sender.login")),
    installationId: typeof id === "number" && Number.isSafeInteger(id) && id > 0 ? id : null,
  };
}

/**
 * Which deliveries the inbox acts on one after another: those of one issue or pull request,
 * and those of one head commit. Different keys may be acted on side by side.
 *
 * @example orderKey(reviewEvent) // "acme/app#12"
 */
export function orderKey(event: ForgeEvent): string {
  return event.kind === "checks" ? `${event.repository}@${event.headSha}` : `${event.repository}#${event.number}`;
}

function read(eventName: string, action: string, r: Reader): ForgeEvent {
  const base = { repository: r.text("repository.full_name"), installationId: r.id("installation.id"), sender: r.sender() };
  switch (eventName) {
    case "issues":
      return {
        kind: "issue",
        action,
        ...base,
        number: r.id("issue.number"),
        title: r.text("issue.title"),
        body: r.optionalText("issue.body"),
        url: r.text("issue.html_url"),
        label: action === "labeled" ? r.text("label.name") : null,
        labels: r.names("issue.labels"),
      };
    case "issue_comment":
      return {
        kind: "issue_comment",
        ...base,
        number: r.id("issue.number"),
        pull: r.has("issue.pull_request"),
        title: r.text("issue.title"),
        issueBody: r.optionalText("issue.body"),
        issueUrl: r.text("issue.html_url"),
        commentId: r.id("comment.id"),
        body: r.optionalText("comment.body"),
        url: r.text("comment.html_url"),
      };
    case "pull_request_review":
      return {
        kind: "review",
        ...base,
        number: r.id("pull_request.number"),
        state: r.text("review.state").toLowerCase(),
        body: r.optionalText("review.body"),
        url: r.text("review.html_url"),
        headRef: r.text("pull_request.head.ref"),
      };
    case "pull_request_review_comment":
      return {
        kind: "review_comment",
        ...base,
        number: r.id("pull_request.number"),
        body: r.optionalText("comment.body"),
        url: r.text("comment.html_url"),
        path: r.text("comment.path"),
        line: r.optionalId("comment.line"),
        headRef: r.text("pull_request.head.ref"),
      };
    case "check_suite":
    case "check_run":
      return checks(eventName, r, base);
    default:
      return {
        kind: "pull_closed",
        ...base,
        number: r.id("pull_request.number"),
        merged: r.get("pull_request.merged") === true,
        headRef: r.text("pull_request.head.ref"),
      };
  }
}

function checks(source: "check_suite" | "check_run", r: Reader, base: Pick<ChecksEvent, "repository" | "installationId" | "sender">): ChecksEvent {
  const branchField = source === "check_suite" ? "check_suite.head_branch" : "check_run.check_suite.head_branch";
  return {
    kind: "checks",
    source,
    ...base,
    headSha: r.text(`${source}.head_sha`),
    headBranch: r.optionalText(branchField) || null,
    pullNumbers: r.list(`${source}.pull_requests`).map((_, i) => r.id(`${source}.pull_requests.${i}.number`)),
    conclusion: r.optionalText(`${source}.conclusion`) || null,
  };
}

/** Reads fields by their dotted path; a missing or mistyped one throws Missing naming it. */
class Reader {
  constructor(private readonly body: unknown) {}

  get(path: string): unknown {
    let at: unknown = this.body;
    for (const part of path.split(".")) {
      if (at === null || typeof at !== "object") return undefined;
      at = (at as Record<string, unknown>)[part];
    }
    return at;
  }

  has(path: string): boolean {
    const value = this.get(path);
    return value !== undefined && value !== null;
  }

  text(path: string): string {
    const value = this.get(path);
    if (typeof value !== "string" || value === "") throw new Missing(path, "a non-empty string");
    return value;
  }

  /** A text GitHub sends as null when empty (an issue's body, a review's). */
  optionalText(path: string): string {
    const value = this.get(path);
    if (value === undefined || value === null) return "";
    if (typeof value !== "string") throw new Missing(path, "a string or null");
    return value;
  }

  /** A positive whole number: an id, an issue's number. */
  id(path: string): number {
    const value = this.get(path);
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) throw new Missing(path, "a positive whole number");
    return value;
  }

  optionalId(path: string): number | null {
    return this.has(path) ? this.id(path) : null;
  }

  list(path: string): unknown[] {
    const value = this.get(path);
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw new Missing(path, "a list");
    return value;
  }

  /** The names of a list of labels. */
  names(path: string): string[] {
    return this.list(path).map((_, i) => this.text(`${path}.${i}.name`));
  }

  sender(): ForgeSender {
    return { login: this.text("sender.login"), id: this.id("sender.id") };
  }
}
