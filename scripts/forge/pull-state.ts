/**
 * The forge's pull requests with their conversation comments, reviews and review comments,
 * per repository. Numbers come from the repository's one sequence shared with issues
 * (`ForgeState.nextNumber`), as on GitHub; ids and node ids are forge-wide. A head sha is read from the branch at each answer (GitHub's
 * follow pushes); the one kept stands in when the branch is gone.
 */

export interface PullComment {
  id: number;
  body: string;
  /** The login of who wrote it (the App's bot for an installation token). */
  user: string;
  created_at: string;
}

/** A submitted review: GitHub's states as its REST API spells them. */
export interface Review {
  id: number;
  state: "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED";
  body: string;
  user: string;
  /** The head sha the review was made on. */
  commit_id: string;
  submitted_at: string;
}

/** A comment on a line of the pull request's diff (of a review, or alone). */
export interface ReviewComment {
  id: number;
  /** The review it came with; null for one written alone. */
  review_id: number | null;
  path: string;
  line: number;
  body: string;
  user: string;
  commit_id: string;
  created_at: string;
}

export interface Pull {
  id: number;
  node_id: string;
  full_name: string;
  number: number;
  title: string;
  body: string;
  /** Branch names in the same repository (the forge has no forks). */
  head: string;
  base: string;
  /** The head branch's sha when last seen (answered when the branch is gone, as GitHub keeps it). */
  head_sha: string;
  draft: boolean;
  state: "open" | "closed";
  /** When it was marked ready for review (absent: opened ready, or still a draft). */
  ready_at?: string;
  /** When the admin API merged it (absent: never merged). */
  merged_at?: string;
  user: string;
  created_at: string;
  updated_at: string;
  comments: PullComment[];
  reviews: Review[];
  review_comments: ReviewComment[];
  labels: string[];
}

export interface SavedPulls {
  pulls: Pull[];
  next_id: number;
}

export class Pulls {
  private readonly all: Pull[] = [];
  private nextId = 1;

  /** The repository's pulls, oldest first. */
  of(fullName: string): Pull[] {
    return this.all.filter((pull) => pull.full_name === fullName);
  }

  get(fullName: string, number: number): Pull | undefined {
    return this.all.find((pull) => pull.full_name === fullName && pull.number === number);
  }

  byNodeId(nodeId: string): Pull | undefined {
    return this.all.find((pull) => pull.node_id === nodeId);
  }

  /** A new forge-wide id (pulls, comments, reviews, issues share the sequence). */
  newId(): number {
    return this.nextId++;
  }

  /** `number`: the repository's next (ForgeState.nextNumber), shared with its issues. */
  open(fields: Pick<Pull, "full_name" | "title" | "body" | "head" | "base" | "head_sha" | "draft" | "user">, number: number, now = new Date()): Pull {
    const id = this.nextId++;
    const at = iso(now);
    // GitHub's node ids are opaque base64 after a type prefix; callers must not parse them.
    const pull: Pull = {
      ...fields,
      id,
      node_id: `PR_kwDO${Buffer.from(`pull:${id}`).toString("base64url")}`,
      number,
      state: "open",
      created_at: at,
      updated_at: at,
      comments: [],
      reviews: [],
      review_comments: [],
      labels: [],
    };
    this.all.push(pull);
    return pull;
  }

  comment(pull: Pull, body: string, user: string, now = new Date()): PullComment {
    const comment = { id: this.nextId++, body, user, created_at: iso(now) };
    pull.comments.push(comment);
    pull.updated_at = comment.created_at;
    return comment;
  }

  toJSON(): SavedPulls {
    return { pulls: this.all, next_id: this.nextId };
  }

  static fromJSON(saved: SavedPulls | undefined): Pulls {
    const pulls = new Pulls();
    if (!saved) return pulls;
    // States saved before reviews and labels lack them.
    for (const pull of saved.pulls)
      pulls.all.push({ ...pull, reviews: pull.reviews ?? [], review_comments: pull.review_comments ?? [], labels: pull.labels ?? [] });
    pulls.nextId = saved.next_id;
    return pulls;
  }
}

/** GitHub's timestamps: ISO-8601 to the second. */
export function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
