import { env } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import { approveInstall, authorizeApp, claimInstallation } from "../../scripts/forge/claim";
import { call } from "./seed";

/** The forge's admin API (its REST base is the Worker's GITHUB_API_URL, test/setup/database.ts). */
export const FORGE_ADMIN = (env as unknown as Env).GITHUB_API_URL!.replace(/\/api$/, "/__forge");

/** A call to the Worker as the organisation of `token`. */
export const caller = (token: string) => (method: string, path: string, body?: unknown) => call(method, path, { token, body });

/**
 * An installation on `account` claimed by the organisation of `token` (OP-REPO-6), as the
 * console's Connect GitHub does it; `connection` is the platform's answer.
 */
export const claim = (token: string, account: string, repositories: string[] = [], user?: string) =>
  claimInstallation(caller(token), FORGE_ADMIN, { account, repositories, user });

/** A call to the forge's admin API: its answer's status and JSON. */
export async function forgeAdmin(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${FORGE_ADMIN}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

export { approveInstall, authorizeApp };
