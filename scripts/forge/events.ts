/**
 * What the forge tells the App, as GitHub's webhook payloads: the event's own objects
 * (issue, comment, pull_request, review, check_run, check_suite) beside `action`,
 * `installation: {id}`, `repository` and `sender`, in the shapes of GitHub's docs, trimmed to
 * the fields a consumer reads. A repository that no live installation holds gets none.
 *
 * @example
 *   events.emit("issues", "opened", "acme/app", "alice", { issue: events.issue(issue) });
 */
import type { CheckRun, CheckSuite } from "./check-state";
import type { Issue } from "./issue-state";
import { People } from "./people-state";
import type { Pull, PullComment, Review, ReviewComment } from "./pull-state";
import type { ForgeState } from "./state";
import type { Delivery, Webhooks } from "./webhooks";

export interface EventsBase {
  state: ForgeState;
  /** The forge's base URL: html_url is under it, the API under `${webUrl}/api`. */
  webUrl: string;
  /** The App's slug: an installation token acts as `<slug>[bot]`. */
  appSlug: string;
}

/** A login as GitHub names an account: a bot's ends in `[bot]`. */
export const account = (login: string) => ({ login, id: People.id(login), type: login.endsWith("[bot]") ? "Bot" : "User" });

export class ForgeEvents {
  constructor(
    private readonly base: EventsBase,
    readonly webhooks: Webhooks,
  ) {}

  /** Sends the event for the repository's installation; undefined when none holds it. */
  emit(event: string, action: string | null, fullName: string, sender: string, fields: Record<string, unknown>): Delivery | undefined {
    const installation = this.base.state.installationOf(fullName);
    if (!installation) return undefined;
    const payload = {
      ...(action === null ? {} : { action }),
      ...fields,
      repository: this.repository(fullName),
      installation: { id: installation.id },
      sender: account(sender),
    };
    return this.webhooks.send(event, action, fullName, installation.id, payload);
  }

  repository(fullName: string) {
    const repository = this.base.state.repositories.get(fullName);
    const owner = fullName.slice(0, fullName.indexOf("/"));
    return {
      id: People.id(`repo:${fullName}`),
      name: fullName.slice(fullName.indexOf("/") + 1),
      full_name: fullName,
      private: repository?.private ?? true,
      owner: { ...account(owner), type: this.base.state.people.isOrganisation(owner) ? "Organization" : "User" },
      html_url: `${this.base.webUrl}/${fullName}`,
      default_branch: repository?.default_branch ?? "main",
    };
  }

  issueUrl(fullName: string, number: number): string {
    return `${this.base.webUrl}/${fullName}/issues/${number}`;
  }

  pullUrl(fullName: string, number: number): string {
    return `${this.base.webUrl}/${fullName}/pull/${number}`;
  }

  /** An issue, or a pull request as the issues API shows it (with `pull_request: {url, html_url}`). */
  issue(item: Issue | Pull) {
    const isPull = "head" in item;
    const html_url = isPull ? this.pullUrl(item.full_name, item.number) : this.issueUrl(item.full_name, item.number);
    const api = `${this.base.webUrl}/api/repos/${item.full_name}`;
    return {
      id: item.id,
      node_id: item.node_id,
      url: `${api}/issues/${item.number}`,
      html_url,
      number: item.number,
      title: item.title,
      body: item.body || null,
      state: item.state,
      labels: item.labels.map((name) => ({ id: People.id(`label:${item.full_name}:${name}`), name })),
      user: account(item.user),
      comments: item.comments.length,
      created_at: item.created_at,
      updated_at: item.updated_at,
      ...(isPull ? { pull_request: { url: `${api}/pulls/${item.number}`, html_url } } : {}),
    };
  }

  comment(item: Issue | Pull, comment: PullComment) {
    const html = "head" in item ? this.pullUrl(item.full_name, item.number) : this.issueUrl(item.full_name, item.number);
    return {
      id: comment.id,
      node_id: `IC_kwDO${Buffer.from(`comment:${comment.id}`).toString("base64url")}`,
      url: `${this.base.webUrl}/api/repos/${item.full_name}/issues/comments/${comment.id}`,
      html_url: `${html}#issuecomment-${comment.id}`,
      issue_url: `${this.base.webUrl}/api/repos/${item.full_name}/issues/${item.number}`,
      body: comment.body,
      user: account(comment.user),
      created_at: comment.created_at,
      updated_at: comment.created_at,
    };
  }

  pullRequest(pull: Pull) {
    const owner = pull.full_name.slice(0, pull.full_name.indexOf("/"));
    return {
      id: pull.id,
      node_id: pull.node_id,
      url: `${this.base.webUrl}/api/repos/${pull.full_name}/pulls/${pull.number}`,
      html_url: this.pullUrl(pull.full_name, pull.number),
      number: pull.number,
      state: pull.state,
      title: pull.title,
      body: pull.body || null,
      user: account(pull.user),
      draft: pull.draft,
      merged: Boolean(pull.merged_at),
      labels: pull.labels.map((name) => ({ name })),
      head: { label: `${owner}:${pull.head}`, ref: pull.head, sha: pull.head_sha },
      base: { label: `${owner}:${pull.base}`, ref: pull.base },
      created_at: pull.created_at,
      updated_at: pull.updated_at,
    };
  }

  review(pull: Pull, review: Review) {
    return {
      id: review.id,
      node_id: `PRR_kwDO${Buffer.from(`review:${review.id}`).toString("base64url")}`,
      user: account(review.user),
      body: review.body || null,
      commit_id: review.commit_id,
      submitted_at: review.submitted_at,
      state: review.state,
      html_url: `${this.pullUrl(pull.full_name, pull.number)}#pullrequestreview-${review.id}`,
      pull_request_url: `${this.base.webUrl}/api/repos/${pull.full_name}/pulls/${pull.number}`,
    };
  }

  reviewComment(pull: Pull, comment: ReviewComment) {
    return {
      id: comment.id,
      node_id: `PRRC_kwDO${Buffer.from(`review-comment:${comment.id}`).toString("base64url")}`,
      pull_request_review_id: comment.review_id,
      url: `${this.base.webUrl}/api/repos/${pull.full_name}/pulls/comments/${comment.id}`,
      html_url: `${this.pullUrl(pull.full_name, pull.number)}#discussion_r${comment.id}`,
      pull_request_url: `${this.base.webUrl}/api/repos/${pull.full_name}/pulls/${pull.number}`,
      path: comment.path,
      line: comment.line,
      original_line: comment.line,
      side: "RIGHT",
      commit_id: comment.commit_id,
      body: comment.body,
      user: account(comment.user),
      created_at: comment.created_at,
      updated_at: comment.created_at,
    };
  }

  /** The open pull requests whose head is the branch or the commit, as check runs and suites list them. */
  checkPulls(fullName: string, sha: string, branch: string | null) {
    return this.base.state.pulls
      .of(fullName)
      .filter((pull) => pull.state === "open" && (pull.head === branch || pull.head_sha === sha))
      .map((pull) => ({
        id: pull.id,
        number: pull.number,
        url: `${this.base.webUrl}/api/repos/${fullName}/pulls/${pull.number}`,
        head: { ref: pull.head, sha: pull.head_sha },
        base: { ref: pull.base },
      }));
  }

  app() {
    return { id: People.id(`app:${this.base.appSlug}`), slug: this.base.appSlug, name: "Guilds (local forge)" };
  }

  checkSuite(suite: CheckSuite) {
    return {
      id: suite.id,
      node_id: `CS_kwDO${Buffer.from(`suite:${suite.id}`).toString("base64url")}`,
      head_branch: suite.head_branch,
      head_sha: suite.head_sha,
      status: suite.status,
      conclusion: suite.conclusion,
      url: `${this.base.webUrl}/api/repos/${suite.full_name}/check-suites/${suite.id}`,
      app: this.app(),
      pull_requests: this.checkPulls(suite.full_name, suite.head_sha, suite.head_branch),
      created_at: suite.created_at,
      updated_at: suite.updated_at,
    };
  }

  checkRun(run: CheckRun) {
    const html_url = `${this.base.webUrl}/${run.full_name}/runs/${run.id}`;
    return {
      id: run.id,
      node_id: `CR_kwDO${Buffer.from(`run:${run.id}`).toString("base64url")}`,
      name: run.name,
      head_sha: run.head_sha,
      external_id: "",
      url: `${this.base.webUrl}/api/repos/${run.full_name}/check-runs/${run.id}`,
      html_url,
      details_url: html_url,
      status: run.status,
      conclusion: run.conclusion,
      started_at: run.started_at,
      completed_at: run.completed_at,
      output: { ...run.output, annotations_count: 0 },
      check_suite: { id: run.suite_id, head_branch: run.head_branch, head_sha: run.head_sha },
      app: this.app(),
      pull_requests: this.checkPulls(run.full_name, run.head_sha, run.head_branch),
    };
  }
}
