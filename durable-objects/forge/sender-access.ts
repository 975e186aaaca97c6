/**
 * Who may start or instruct a task from GitHub (issue 33): a writer of the repository, as
 * GitHub answers `GET /repos/{o}/{r}/collaborators/{user}/permission` to an installation
 * token minted for that repository. A bot (the platform's own comments come back as
 * deliveries) is refused without asking. Answers are kept a minute per repository and user
 * in the isolate, so a burst of comments asks GitHub once; the tokens until near expiry.
 */
import type { Env } from "../../bindings/env";
import { forgePlugin, githubApiUrl, githubApp } from "../../bindings/github";
import { ISSUE_TOKEN_PERMISSIONS } from "../../core/github/client";
import { collaboratorPermission, mayInstruct, type RepositoryPermission, refusal } from "../../core/github/collaborator-permission";
import type { ForgePlugin } from "../../core/github/forge-plugin";
import type { ForgeSender } from "../../core/github/webhook-event";
import { isBot } from "../../core/tasks/forge-messages";

/** How long an answer about a sender's access is trusted. */
export const PERMISSION_TTL_MS = 60_000;
/** A token is minted again when it has less than this left. */
const TOKEN_MARGIN_MS = 10 * 60_000;
/** Entries kept at most per map: a flood of senders cannot grow the isolate's memory. */
const MAX_ENTRIES = 1_000;

const permissions = new Map<string, { permission: RepositoryPermission; at: number }>();
const tokens = new Map<string, { token: string; expiresAt: number }>();

/** Keeps `map` within MAX_ENTRIES, forgetting the oldest insertions first. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > MAX_ENTRIES) map.delete(map.keys().next().value!);
}

/** Where a delivery happened: its repository, the installation it came through, who caused it. */
export interface DeliveryPlace {
  repository: string;
  installationId: number;
  sender: ForgeSender;
}

/** The platform has no GitHub App configured: no delivery can be acted on. */
export class NoGitHubApp extends Error {
  override readonly name = "NoGitHubApp";
  constructor() {
    super("the platform has no GitHub App configured");
  }
}

/** An installation token limited to the repository (issues write: the platform's comments), minted again when near its expiry. */
export async function repositoryToken(env: Env, place: Pick<DeliveryPlace, "repository" | "installationId">, now: number): Promise<string> {
  const key = `${place.installationId}\n${place.repository.toLowerCase()}`;
  const cached = tokens.get(key);
  if (cached && cached.expiresAt - now > TOKEN_MARGIN_MS) return cached.token;
  const app = githubApp(env);
  if (!app) throw new NoGitHubApp();
  const minted = await app.mintRepositoryToken(place.installationId, place.repository, ISSUE_TOKEN_PERMISSIONS);
  remember(tokens, key, { token: minted.token, expiresAt: Date.parse(minted.expires_at) });
  return minted.token;
}

/** The forge acting on the delivery's repository with such a token: the platform's comments. */
export async function repositoryForge(env: Env, place: Pick<DeliveryPlace, "repository" | "installationId">, now: number): Promise<ForgePlugin> {
  return forgePlugin(env, await repositoryToken(env, place, now));
}

/**
 * Null when the sender may start or instruct a task; otherwise why not, in the words the
 * deliveries list shows ("@carol has read access").
 *
 * @example const refused = await senderRefusal(env, event, Date.now()); if (refused) return ignored(refused);
 */
export async function senderRefusal(env: Env, place: DeliveryPlace, now: number): Promise<string | null> {
  const login = place.sender.login;
  if (isBot(login)) return `@${login} is a bot`;
  const key = `${place.repository.toLowerCase()}\n${login.toLowerCase()}`;
  const cached = permissions.get(key);
  let permission = cached && now - cached.at < PERMISSION_TTL_MS ? cached.permission : null;
  if (permission === null) {
    const token = await repositoryToken(env, place, now);
    permission = await collaboratorPermission({ apiUrl: githubApiUrl(env), token, fullName: place.repository, user: login });
    remember(permissions, key, { permission, at: now });
  }
  return mayInstruct(permission) ? null : refusal(login, permission);
}
