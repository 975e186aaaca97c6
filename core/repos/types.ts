/**
 * Repositories of coding agents (REPO-*): the words shared by the GitHub client, the guild's
 * repositories, the generation's preparation, the image's guilds-code and the changes routes.
 */

/** Where a coding agent's clones live, one folder per repository (its name). */
export const REPOS_DIR = "/home/agent/repos";
/** The generation's installation tokens, outside the workspace (REPO-003, OP-REPO-1). */
export const GIT_TOKENS_PATH = "/run/guilds/git-tokens.json";
/** The image's git helper (SBX-013). */
export const GUILDS_CODE = "/usr/local/bin/guilds-code";
/** How long one clone may take (REPO-006). */
export const CLONE_TIMEOUT_S = 600;
/** A token this close to expiry is minted again before a shell command (REPO-012). */
export const TOKEN_REFRESH_MS = 10 * 60_000;
/** The largest diff the changes route returns (REPO-022, OP-REPO-2). */
export const DIFF_MAX_BYTES = 256 * 1024;

/** One entry of git-tokens.json, keyed `<host>/<owner>/<repo>` (no `.git`). */
export interface GitTokenEntry {
  token: string;
  /** ISO-8601. */
  expires_at: string;
}

/** What a run records per repository at each end checkpoint (REPO-018): the diffstat start..end. */
export interface RepoChange {
  name: string;
  branch: string | null;
  head_sha: string | null;
  start_sha: string;
  end_sha: string;
  files_changed: number;
  insertions: number;
  deletions: number;
  /**
   * Per file, start..end (RUN-019): what an end checkpoint of guilds-code answers beside the
   * diffstat. The platform writes them to file_changes, not to metadata.repos.
   */
  files?: FileChange[];
  /** More files changed than FILE_CHANGES_MAX: `files` holds the first ones, by path. */
  files_truncated?: boolean;
}

/** git's change kinds as file_changes names them. */
export type FileChangeKind = "added" | "modified" | "deleted" | "renamed" | "copied" | "type_changed";

/** One file a run changed in one repository, start..end (RUN-019). */
export interface FileChange {
  path: string;
  change: FileChangeKind;
  /** The path before a rename or the source of a copy; null otherwise. */
  old_path: string | null;
  /** null for a binary file: git counts no lines of it. */
  insertions: number | null;
  deletions: number | null;
}

/** Most files one repository's end checkpoint lists (file_changes rows per repository and run). */
export const FILE_CHANGES_MAX = 2_000;

/** A guild repository as a generation prepares it. */
export interface RepositoryForGeneration {
  id: string;
  /** `owner/repo`. */
  full_name: string;
  /** The folder under REPOS_DIR: the repo part of full_name. */
  name: string;
  default_branch: string;
  /** Derived from the platform's git base and full_name, never given by a tenant. */
  clone_url: string;
  /** null: a public repository cloned anonymously. */
  connection: { id: string; installation_id: number; disconnected: boolean } | null;
}
