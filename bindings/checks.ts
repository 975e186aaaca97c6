/**
 * A task's checks as the Worker and the objects read them: GitHub's Checks API
 * (core/github/checks-api.ts) with an installation token of the repository that reads checks
 * and nothing else (CHECKS_TOKEN_PERMISSIONS).
 */
import { type ChecksReader, githubChecks } from "../core/github/checks-api";
import { CHECKS_TOKEN_PERMISSIONS } from "../core/github/client";
import type { Env } from "./env";
import { githubApp } from "./github";

/**
 * The checks of one repository through its installation, or null for a repository without a
 * connected installation (or no App configured): such a task has no checks to wait for.
 *
 * @example const reader = await checksReader(env, { installationId: 678, fullName: "acme/app" });
 */
export async function checksReader(env: Env, repository: { installationId: number | null; fullName: string }): Promise<ChecksReader | null> {
  if (repository.installationId === null) return null;
  const app = githubApp(env);
  if (!app) return null;
  const { token } = await app.mintRepositoryToken(repository.installationId, repository.fullName, CHECKS_TOKEN_PERMISSIONS);
  return githubChecks({ apiUrl: env.GITHUB_API_URL || "https://api.github.com", token });
}
