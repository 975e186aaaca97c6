/**
 * How a user installs the forge's App and proves it to the platform, as on github.com:
 * - `GET /apps/<slug>/installations/new?state=…`: the install page the platform's
 *   "Connect GitHub" opens. On GitHub the user picks an account and repositories and
 *   approves; here `POST /__forge/install` (admin, which the page's form calls) stands in
 *   for that approval.
 * - the approval answers the redirect GitHub makes to the App's setup URL, with
 *   `installation_id`, `setup_action` and (user authorization during installation being on)
 *   a `code`, the `state` passed through untouched.
 * - `POST /__forge/authorize` (admin) stands in for GitHub's web flow, which gives any user a
 *   code for the App without installing it.
 * - `POST /login/oauth/access_token` exchanges the code (once, within ten minutes) for a
 *   user token with the App's client id and secret; `GET /api/user/installations`
 *   (github-api.ts) lists the installations that user may see.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ForgeError, readBody, sendJson } from "./http";
import type { ForgeState } from "./state";

/** The App as its public page and its OAuth client know it. */
export interface AppIdentity {
  slug: string;
  clientId: string;
  clientSecret: string;
  /** Where GitHub sends the user after the install (the App's setup URL); none: the approval answers no redirect. */
  setupUrl?: string;
}

export interface InstallContext {
  state: ForgeState;
  app: AppIdentity;
}

const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

/** The install page, the OAuth code exchange; false when no route matches. */
export async function serveInstall(ctx: InstallContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  const method = req.method ?? "GET";
  if (url.pathname === `/apps/${ctx.app.slug}/installations/new` && method === "GET") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(installPage(ctx.app, url.searchParams.get("state")));
    return true;
  }
  if (url.pathname === "/login/oauth/access_token" && method === "POST") {
    sendJson(res, 200, exchange(ctx, await readBody(req)));
    return true;
  }
  return false;
}

/**
 * `POST /__forge/install` `{account, repositories?, user?, state?}`: `user` (default: the
 * account) approves installing the App on `account` for `repositories`. Answers what GitHub's
 * redirect to the setup URL carries, and that URL when the App has one.
 */
export function approveInstall(ctx: InstallContext, body: Record<string, unknown>) {
  const { account, repositories = [], user = account, state } = body;
  if (typeof account !== "string" || !LOGIN.test(account)) throw new ForgeError(422, "account must be a GitHub login");
  if (typeof user !== "string" || !LOGIN.test(user)) throw new ForgeError(422, "user must be a GitHub login");
  if (state !== undefined && typeof state !== "string") throw new ForgeError(422, "state must be a string");
  if (!Array.isArray(repositories) || !repositories.every((name) => typeof name === "string" && name.length > 0)) {
    throw new ForgeError(422, "repositories must be repository names");
  }
  const fullNames = (repositories as string[]).map((name) => (name.includes("/") ? name : `${account}/${name}`));
  mayInstall(ctx.state, account, user);
  const { installation, action } = ctx.state.install(account, fullNames, user);
  const code = ctx.state.issueCode(user);
  const query = new URLSearchParams({ installation_id: String(installation.id), setup_action: action, code });
  if (state !== undefined) query.set("state", state);
  return {
    installation_id: installation.id,
    setup_action: action,
    code,
    ...(state === undefined ? {} : { state }),
    redirect_url: ctx.app.setupUrl ? `${ctx.app.setupUrl}?${query}` : null,
  };
}

/**
 * Who installs the App on an account, as on GitHub: a user on their own account, an owner on
 * an organisation's. Another user approving on an account that is not an organisation yet
 * makes it one, with that user its owner; a member who is not an owner, or not yet active,
 * is refused.
 */
function mayInstall(state: ForgeState, account: string, user: string): void {
  const { people } = state;
  if (user === account) {
    if (people.isOrganisation(account)) throw new ForgeError(422, "An organisation does not sign in: user must be one of its owners");
    return;
  }
  if (!people.isOrganisation(account)) people.setMembership(account, user, { role: "admin", state: "active" });
  else if (!people.owns(account, user)) throw new ForgeError(403, `${user} is not an owner of ${account}: only an organisation's owners install Apps on it`);
}

/**
 * `POST /__forge/authorize` `{user}`: a code of `user` without installing anything, as
 * GitHub's web flow (`/login/oauth/authorize`) gives any user who authorises the App.
 */
export function authorize(ctx: InstallContext, body: Record<string, unknown>) {
  const { user } = body;
  if (typeof user !== "string" || !LOGIN.test(user)) throw new ForgeError(422, "user must be a GitHub login");
  return { code: ctx.state.issueCode(user) };
}

/** GitHub answers 200 with an `error` for a bad code or client, as its OAuth endpoint does. */
function exchange(ctx: InstallContext, body: Record<string, string>) {
  if (body.client_id !== ctx.app.clientId || body.client_secret !== ctx.app.clientSecret) {
    return { error: "incorrect_client_credentials", error_description: "The client_id and/or client_secret passed are incorrect." };
  }
  const token = typeof body.code === "string" ? ctx.state.exchangeCode(body.code) : undefined;
  if (!token) return { error: "bad_verification_code", error_description: "The code passed is incorrect or expired." };
  return { access_token: token, token_type: "bearer", scope: "" };
}

/**
 * The install page: for someone on `npm start`, a form that makes the approval call (same
 * origin: the admin API is on this loopback listener) and follows its redirect, as GitHub's
 * Install button does; tests make the call themselves.
 */
function installPage(app: AppIdentity, state: string | null): string {
  const html = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Install ${html(app.slug)}</title></head>
<body>
<h1>Install ${html(app.slug)}</h1>
<p>The local forge stands in for GitHub's install page. Approving here is the admin call
<code>POST /__forge/install {"account", "repositories", "user", "state"}</code>.</p>
<form id="install">
<p><label>Account <input name="account" required pattern="[A-Za-z0-9-]+"></label></p>
<p><label>Repositories (comma-separated names) <input name="repositories"></label></p>
<p><label>User (default: the account) <input name="user" pattern="[A-Za-z0-9-]*"></label></p>
<input type="hidden" name="state" value="${html(state ?? "")}">
<p><button type="submit">Install</button> <output id="result"></output></p>
</form>
<script>
document.getElementById("install").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const body = { account: form.get("account"), repositories: String(form.get("repositories")).split(",").map((n) => n.trim()).filter(Boolean) };
  if (form.get("user")) body.user = form.get("user");
  if (form.get("state")) body.state = form.get("state");
  const res = await fetch("/__forge/install", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const answer = await res.json();
  if (res.ok && answer.redirect_url) location.assign(answer.redirect_url);
  else document.getElementById("result").textContent = res.ok ? "Installed: installation " + answer.installation_id : answer.message;
});
</script>
</body></html>
`;
}
