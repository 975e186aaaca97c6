import { GitHubApp } from "../core/github/client";
import { type ForgePlugin, githubForge } from "../core/github/forge-plugin";
import { GitHubOAuth } from "../core/github/oauth";
import type { Env } from "./env";

/** GitHub's REST base: GITHUB_API_URL (GitHub Enterprise's `https://<host>/api/v3`, the local forge's), github.com's by default. */
export const githubApiUrl = (env: Env) => env.GITHUB_API_URL || "https://api.github.com";

/**
 * The platform's GitHub App from its settings, or null when the operator has not configured
 * one (GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY; the API base defaults to github.com's).
 */
export function githubApp(env: Env): GitHubApp | null {
  if (!env.GITHUB_APP_ID || !env.GITHUB_APP_PRIVATE_KEY) return null;
  return new GitHubApp({ apiUrl: githubApiUrl(env), appId: env.GITHUB_APP_ID, privateKeyPem: env.GITHUB_APP_PRIVATE_KEY });
}

/**
 * What an installation claim needs of the App besides its key: its public slug (the install
 * page) and its OAuth client (the code exchange); null when one is missing.
 */
export function githubOAuth(env: Env): GitHubOAuth | null {
  if (!env.GITHUB_APP_SLUG || !env.GITHUB_APP_CLIENT_ID || !env.GITHUB_APP_CLIENT_SECRET) return null;
  return new GitHubOAuth({
    webUrl: env.GITHUB_WEB_URL || "https://github.com",
    apiUrl: githubApiUrl(env),
    slug: env.GITHUB_APP_SLUG,
    clientId: env.GITHUB_APP_CLIENT_ID,
    clientSecret: env.GITHUB_APP_CLIENT_SECRET,
  });
}

/**
 * The forge plugin acting with an installation token (one minted for the task's repository,
 * `GitHubApp.mintRepositoryToken`); its GraphQL endpoint follows from the same base.
 */
export function forgePlugin(env: Env, token: string): ForgePlugin {
  return githubForge({ apiUrl: githubApiUrl(env), token });
}
