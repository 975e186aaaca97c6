/**
 * The words of a coding agent's generation start (REPO-001..013): what the tokens file
 * holds, when a token is minted again, and how a refused token or a failed clone reads as
 * a generation-start error. Pure: the orchestration is durable-objects/agent/generation/repositories.ts.
 */
import { gitTokenKey } from "./git-token-key";
import { lastJson } from "./guilds-code";
import { type GitTokenEntry, REPOS_DIR, type RepoChange, type RepositoryForGeneration, TOKEN_REFRESH_MS } from "./types";

/** Why a connection's token could not be had, as the GitHub client says it. */
export interface TokenRefusal {
  kind: "not_configured" | "disconnected" | "installation_refused" | "repository_unreachable" | "unavailable";
  /** The unreachable repository's name (repository_unreachable). */
  repository?: string;
  detail?: string;
}

/**
 * The repository.token message (REPO-004): which repositories, and why. Never carries a token.
 *
 * @example tokenFailureMessage([acmeApp], { kind: "repository_unreachable", repository: "app" })
 * // "The GitHub installation no longer reaches acme/app"
 */
export function tokenFailureMessage(repositories: readonly RepositoryForGeneration[], refusal: TokenRefusal): string {
  const names = repositories.map((r) => r.full_name).join(", ");
  switch (refusal.kind) {
    case "not_configured":
      return `No GitHub App is configured on this platform, so no token can be minted for ${names}`;
    case "disconnected":
      return `The GitHub connection of ${names} is disconnected; connect the installation again`;
    case "installation_refused":
      return `GitHub refused the installation of ${names}: it was removed or suspended`;
    case "repository_unreachable": {
      const named = repositories.find((r) => r.name === refusal.repository)?.full_name ?? refusal.repository ?? names;
      return `The GitHub installation no longer reaches ${named}`;
    }
    default:
      return `GitHub gave no token for ${names}${refusal.detail ? `: ${refusal.detail}` : ""}`;
  }
}

/** guilds-code clone's refusal (exit 3). */
export interface CloneRefusal {
  reason?: unknown;
  credentials?: unknown;
}

/**
 * The repository.clone message (REPO-008): which repository, git's reason, and, when git
 * wanted credentials, whether it had none to give or left its token unused.
 *
 * @example cloneFailureMessage(acmeApp, { reason: "fatal: could not read Username", credentials: "anonymous" })
 */
export function cloneFailureMessage(repository: RepositoryForGeneration, refusal: CloneRefusal | null, fallback = ""): string {
  const reason = typeof refusal?.reason === "string" && refusal.reason ? refusal.reason : fallback.trim().split("\n").at(-1) || "git failed";
  const credentials =
    refusal?.credentials === "anonymous"
      ? "; git wanted credentials, and the repository has no GitHub connection, so it was cloned anonymously"
      : refusal?.credentials === "token_unused"
        ? "; git wanted credentials and left the repository's installation token unused"
        : "";
  return `Cloning ${repository.full_name} failed: ${reason}${credentials}`;
}

/** The tokens file's text (OP-REPO-1): one entry per repository, keyed as the credential helper looks it up. */
export function tokensFileText(entries: ReadonlyArray<{ repository: RepositoryForGeneration; token: GitTokenEntry }>): string {
  const file: Record<string, GitTokenEntry> = {};
  for (const { repository, token } of entries) {
    const key = gitTokenKey(repository.clone_url);
    if (key) file[key] = { token: token.token, expires_at: token.expires_at };
  }
  return `${JSON.stringify(file, null, 2)}\n`;
}

/**
 * REPO-012: a token within 10 minutes of its expiry is minted again before a command.
 *
 * @example dueForRefresh("2026-01-01T00:09:00Z", Date.parse("2026-01-01T00:00:00Z")) // true
 */
export function dueForRefresh(expiresAt: string, now: number): boolean {
  const ends = Date.parse(expiresAt);
  return !Number.isFinite(ends) || ends - now <= TOKEN_REFRESH_MS;
}

/** REPO-011: commands start in the repository when the guild has exactly one. */
export function workingDirectory(repositories: readonly Pick<RepositoryForGeneration, "name">[]): string | null {
  return repositories.length === 1 ? `${REPOS_DIR}/${repositories[0]!.name}` : null;
}

/** guilds-code checkpoint's answer: the repositories' diffstats, or null when it printed none. */
export function readCheckpoint(output: string): RepoChange[] | null {
  const answer = lastJson(output);
  if (!Array.isArray(answer)) return null;
  return answer.filter(
    (r): r is RepoChange =>
      r !== null && typeof r === "object" && typeof r.name === "string" && typeof r.start_sha === "string" && typeof r.end_sha === "string",
  );
}
