import { GitHubApp } from "../core/github/client";
import type { Env } from "./env";

/**
 * The platform's GitHub App from its settings, or null when the operator has not configured
 * one (GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY; the API base defaults to github.com's).
 */
export function githubApp(env: Env): GitHubApp | null {
  if (!env.GITHUB_APP_ID || !env.GITHUB_APP_PRIVATE_KEY) return null;
  return new GitHubApp({ apiUrl: env.GITHUB_API_URL || "https://api.github.com", appId: env.GITHUB_APP_ID, privateKeyPem: env.GITHUB_APP_PRIVATE_KEY });
}
