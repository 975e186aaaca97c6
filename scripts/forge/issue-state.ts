/**
 * The forge's issues, per repository: title, body, labels, author, state and conversation
 * comments. Numbers come from the repository's sequence shared with pull requests
 * (`ForgeState.nextNumber`), so an issue and a pull request never share one; ids come from
 * the forge-wide sequence of `Pulls.newId`.
 */
import type { PullComment } from "./pull-state";

export interface Issue {
  id: number;
  node_id: string;
  full_name: string;
  number: number;
  title: string;
  body: string;
  labels: string[];
  /** The login of who filed it. */
  user: string;
  state: "open" | "closed";
  created_at: string;
  updated_at: string;
  comments: PullComment[];
}

export interface SavedIssues {
  issues: Issue[];
}

export class Issues {
  private readonly all: Issue[] = [];

  /** The repository's issues, oldest first. */
  of(fullName: string): Issue[] {
    return this.all.filter((issue) => issue.full_name === fullName);
  }

  get(fullName: string, number: number): Issue | undefined {
    return this.all.find((issue) => issue.full_name === fullName && issue.number === number);
  }

  add(issue: Issue): Issue {
    this.all.push(issue);
    return issue;
  }

  toJSON(): SavedIssues {
    return { issues: this.all };
  }

  /** Absent from states saved before the forge had issues. */
  static fromJSON(saved: SavedIssues | undefined): Issues {
    const issues = new Issues();
    issues.all.push(...(saved?.issues ?? []));
    return issues;
  }
}
