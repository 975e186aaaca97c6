/**
 * An installation claimed the way the console does it, for tests and benchmarks against the
 * local forge (OP-REPO-6): the platform's install URL and state (`POST /api/github/claims`),
 * the user's approval on the forge's install page (its admin call stands in for the click),
 * and what GitHub's redirect carries posted back (`POST /api/github/connections`). Fetch only,
 * so it runs in Node and in workerd alike.
 *
 * @example
 *   const { connection } = await claimInstallation(call, forge.adminUrl, { account: "acme", repositories: ["app"] });
 *   connection.json.id // the new connection
 */

/** A JSON call to the platform's API as one organisation; its answer type is the caller's. */
export type ApiCall<R extends Answer = Answer> = (method: string, path: string, body?: unknown) => Promise<R>;
type Answer = { status: number; json: unknown };

export interface Approval {
  installation_id: number;
  setup_action: "install" | "update";
  code: string;
  state?: string;
  /** The setup URL with the redirect's query, when the forge knows the setup URL. */
  redirect_url: string | null;
}

/** `user` (default: the account) approves installing the App on `account` for `repositories`, with `state` passed through. */
export async function approveInstall(adminUrl: string, input: { account: string; repositories?: string[]; user?: string; state?: string }): Promise<Approval> {
  const res = await fetch(`${adminUrl}/install`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(input) });
  if (res.status !== 201) throw new Error(`the forge refused the install (HTTP ${res.status}): ${await res.text()}`);
  return (await res.json()) as Approval;
}

/** A code of `user` for the App without installing anything, as GitHub's web flow gives any user who authorises it. */
export async function authorizeApp(adminUrl: string, user: string): Promise<string> {
  const res = await fetch(`${adminUrl}/authorize`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user }) });
  if (res.status !== 201) throw new Error(`the forge refused the authorisation (HTTP ${res.status}): ${await res.text()}`);
  return ((await res.json()) as { code: string }).code;
}

/** A claim state from the platform, failing loudly when it does not give one. */
export async function claimState(call: ApiCall): Promise<{ install_url: string; state: string; expires_at: string }> {
  const claim = await call("POST", "/api/github/claims");
  if (claim.status !== 201) throw new Error(`POST /api/github/claims answered ${claim.status}: ${JSON.stringify(claim.json)}`);
  return claim.json as { install_url: string; state: string; expires_at: string };
}

/** The whole claim; `connection` is the platform's answer to it (201 with the connection when accepted). */
export async function claimInstallation<R extends Answer>(
  call: ApiCall<R>,
  adminUrl: string,
  input: { account: string; repositories?: string[]; user?: string },
) {
  const { state } = await claimState(call);
  const approval = await approveInstall(adminUrl, { ...input, state });
  const connection = await call("POST", "/api/github/connections", { installation_id: approval.installation_id, code: approval.code, state });
  return { connection, installationId: approval.installation_id, approval, state };
}
