/**
 * The GitHub App's webhook deliveries as the platform acts on them: `forgeEventOf` (in
 * webhook-normalise.ts) reads a delivery's event name and JSON body into one of these, keeping
 * only what the tasks need, so the stored row is small and the inbox never reads GitHub's
 * full payload again. Pure: no Workers API.
 */

/** Who caused the event: their login and numeric id, as GitHub sends `sender`. */
export interface ForgeSender {
  login: string;
  id: number;
}

interface Base {
  /** owner/repo as GitHub spells it. */
  repository: string;
  installationId: number;
  sender: ForgeSender;
}

/**
 * `issues` opened, labeled or edited: an issue that carries the repository's trigger label
 * files a task. `label` is the label just added (`labeled`), `labels` all it carries now.
 */
export interface IssueEvent extends Base {
  kind: "issue";
  action: string;
  number: number;
  title: string;
  body: string;
  url: string;
  label: string | null;
  labels: string[];
}

/** `issue_comment` created, on an issue or on a pull request's conversation (`pull: true`). */
export interface IssueCommentEvent extends Base {
  kind: "issue_comment";
  number: number;
  pull: boolean;
  /** The issue's (or pull request's) title and body, for a task an @-mention files. */
  title: string;
  issueBody: string;
  issueUrl: string;
  commentId: number;
  body: string;
  url: string;
}

/** `pull_request_review` submitted. */
export interface ReviewEvent extends Base {
  kind: "review";
  number: number;
  /** approved, changes_requested, commented. */
  state: string;
  body: string;
  url: string;
  headRef: string;
}

/** `pull_request_review_comment` created: a comment on a line of the diff. */
export interface ReviewCommentEvent extends Base {
  kind: "review_comment";
  number: number;
  body: string;
  url: string;
  path: string;
  /** The line in the file (null when GitHub gives none, an outdated comment). */
  line: number | null;
  headRef: string;
}

/** `check_suite` or `check_run` completed on a commit. */
export interface ChecksEvent extends Base {
  kind: "checks";
  /** check_suite or check_run: which one completed. */
  source: "check_suite" | "check_run";
  headSha: string;
  /** The branch GitHub names for the head (null when it does not say). */
  headBranch: string | null;
  /** Pull requests of the repository the commit heads. */
  pullNumbers: number[];
  conclusion: string | null;
}

/** `pull_request` closed (merged or not). */
export interface PullClosedEvent extends Base {
  kind: "pull_closed";
  number: number;
  merged: boolean;
  headRef: string;
}

export type ForgeEvent = IssueEvent | IssueCommentEvent | ReviewEvent | ReviewCommentEvent | ChecksEvent | PullClosedEvent;

/** A stored delivery as the organisation's inbox hands it to `actOnDelivery`. */
export interface ForgeDelivery {
  /** The row's id (forge_deliveries.id). */
  id: string;
  deliveryId: string;
  organisationId: string;
  event: ForgeEvent;
  /** The platform's origin the delivery reached (https://…): links in comments point there. */
  origin: string;
}

/** What acting on a delivery came to: stored as the delivery's outcome and detail. */
export interface DeliveryResult {
  outcome: "accepted" | "ignored";
  /** What was done ("filed APP-7", "message to APP-7") or why nothing was ("sender has read access"). */
  detail: string;
}
