/**
 * The per-run gateway credential (TASK-011): 32 random bytes, base64url, which the box's git
 * presents as its Basic-auth password to the git gateway. Compared in constant time.
 */
import { gitTokenKey } from "../repos/git-token-key";

/** A fresh credential: 32 bytes from the platform's CSPRNG, base64url without padding. */
export function newCredential(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Whether `presented` is `expected`, in time that depends on the presented length only,
 * never on where the two first differ. An absent expected credential matches nothing.
 */
export function sameCredential(expected: string | null | undefined, presented: string): boolean {
  if (!expected) return false;
  const a = new TextEncoder().encode(expected);
  const b = new TextEncoder().encode(presented);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i % a.length] ?? 0) ^ b[i]!;
  return diff === 0;
}

/**
 * The tokens file (/run/guilds/git-tokens.json) of a task box: the run's credential for the
 * gateway's URL of the task's repository, and nothing else (no installation token, TASK-011).
 */
export function gatewayTokensFile(taskId: string, fullName: string, credential: string, expiresAt: string, base = GATEWAY_BASE): string {
  const key = gitTokenKey(gatewayRemote(taskId, fullName, base));
  return `${JSON.stringify(key ? { [key]: { token: credential, expires_at: expiresAt } } : {}, null, 2)}\n`;
}

/** The outbound host the task box's git talks to; the Container class intercepts it. */
export const GATEWAY_HOST = "git.gateway.internal";

/** Where the box's git finds the gateway: the intercepted host, unless the platform names a route (GIT_GATEWAY_URL). */
export const GATEWAY_BASE = `http://${GATEWAY_HOST}`;

/**
 * The task box's git remote for the task's repository.
 *
 * @example gatewayRemote("5b7e…", "acme/app") // "http://git.gateway.internal/tasks/5b7e…/acme/app.git"
 */
export const gatewayRemote = (taskId: string, fullName: string, base = GATEWAY_BASE) => `${base.replace(/\/$/, "")}/tasks/${taskId}/${fullName}.git`;

/** The box of a task: the standard Container class's object of this name, one per task; its runs use it one at a time (decision 0017). */
export const taskBoxName = (taskId: string) => `task:${taskId}`;

/** The outbound host a task box's harness reaches the model gateway at; the Container class intercepts it. */
export const MODEL_GATEWAY_HOST = "model.gateway.internal";

/**
 * The base URL the box's harness is given (ANTHROPIC_BASE_URL): the intercepted host, unless
 * the platform names a route (MODEL_GATEWAY_URL, the local stack's).
 *
 * @example modelGatewayBase("5b7e…") // "http://model.gateway.internal/tasks/5b7e…"
 */
export const modelGatewayBase = (taskId: string, base = `http://${MODEL_GATEWAY_HOST}`) => `${base.replace(/\/$/, "")}/tasks/${taskId}`;
