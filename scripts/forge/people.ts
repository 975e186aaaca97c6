/**
 * GitHub's endpoints about people, in its shapes and status codes:
 * - `GET /user` with a user token: who it is (`{login, id, type}`).
 * - `GET /user/memberships/orgs/{org}` with a user token: the user's membership (`role`
 *   admin or member, `state` active or pending); 404 when they are not a member.
 * - `GET /repos/{owner}/{repo}/collaborators/{username}/permission`: `{permission, role_name,
 *   user}` (permission admin, write, read or none), for a caller that may see the repository.
 * And their admin side under `/__forge`: `PUT /orgs/{org}/memberships/{user}` `{role?, state?}`
 * and `PUT /repos/{owner}/{repo}/collaborators/{user}` `{permission}` (null removes).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { bearer, ForgeError, readJson, sendJson } from "./http";
import { type Membership, People, REPOSITORY_ROLES, type RepositoryRole } from "./people-state";
import type { ForgeState } from "./state";

const LOGIN = "[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}";
const MEMBERSHIP = new RegExp(`^/user/memberships/orgs/(${LOGIN})$`);
const PERMISSION = new RegExp(`^/repos/(${LOGIN}/[A-Za-z0-9._-]+)/collaborators/(${LOGIN})/permission$`);
const ADMIN_MEMBERSHIP = new RegExp(`^/orgs/(${LOGIN})/memberships/(${LOGIN})$`);
const ADMIN_COLLABORATOR = new RegExp(`^/repos/(${LOGIN}/[A-Za-z0-9._-]+)/collaborators/(${LOGIN})$`);

/** The user of a live user token (from the OAuth code exchange); 401 otherwise, as GitHub answers. */
export function tokenUser(state: ForgeState, req: IncomingMessage): string {
  const token = bearer(req);
  const user = token ? state.tokenUser(token) : undefined;
  if (!user) throw new ForgeError(401, "Bad credentials");
  return user;
}

/** Serves `path` (below `/api`); false when no route matches. */
export function servePeople(state: ForgeState, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if ((req.method ?? "GET") !== "GET") return false;
  if (path === "/user") {
    sendJson(res, 200, userBody(tokenUser(state, req)));
    return true;
  }
  const membership = MEMBERSHIP.exec(path);
  if (membership) {
    const user = tokenUser(state, req);
    const organisation = membership[1]!;
    const found = state.people.membership(organisation, user);
    if (!found) throw new ForgeError(404, "Not Found");
    sendJson(res, 200, {
      state: found.state,
      role: found.role,
      organization: { login: organisation, id: People.id(organisation) },
      user: userBody(user),
    });
    return true;
  }
  const permission = PERMISSION.exec(path);
  if (permission) {
    const [, fullName, username] = permission as unknown as [string, string, string];
    const repository = state.repositories.get(fullName);
    if (!repository || !maySee(state, req, fullName, repository.private)) throw new ForgeError(404, "Not Found");
    const role = state.people.role(fullName, username, repository.private);
    sendJson(res, 200, { permission: legacyPermission(role), role_name: role ?? "none", user: { ...userBody(username), role_name: role ?? "none" } });
    return true;
  }
  return false;
}

/** A public repository, or a token that reaches it: an installation's limited to it, or a user's with a role on it. */
function maySee(state: ForgeState, req: IncomingMessage, fullName: string, isPrivate: boolean): boolean {
  const token = bearer(req);
  if (token === null) return !isPrivate;
  if (state.liveToken(token)) return !isPrivate || state.reaches(token, fullName);
  const user = state.tokenUser(token);
  if (!user) throw new ForgeError(401, "Bad credentials");
  return state.people.role(fullName, user, isPrivate) !== undefined;
}

/** GitHub's `permission` predates roles: maintain reads as write, triage as read. */
function legacyPermission(role: RepositoryRole | undefined): "admin" | "write" | "read" | "none" {
  if (role === "admin") return "admin";
  if (role === "maintain" || role === "write") return "write";
  return role ? "read" : "none";
}

const userBody = (login: string) => ({ login, id: People.id(login), type: "User", site_admin: false });

/** Serves the admin side (below `/__forge`); false when no route matches. */
export async function servePeopleAdmin(state: ForgeState, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  if ((req.method ?? "GET") !== "PUT") return false;
  const membership = ADMIN_MEMBERSHIP.exec(path);
  if (membership) {
    const { role = "member", state: status = "active" } = await readJson(req);
    if (role !== "admin" && role !== "member") throw new ForgeError(422, "role must be admin or member");
    if (status !== "active" && status !== "pending") throw new ForgeError(422, "state must be active or pending");
    const set: Membership = { role, state: status };
    state.people.setMembership(membership[1]!, membership[2]!, set);
    sendJson(res, 200, { organization: membership[1], user: membership[2], ...set });
    return true;
  }
  const collaborator = ADMIN_COLLABORATOR.exec(path);
  if (collaborator) {
    const [, fullName, user] = collaborator as unknown as [string, string, string];
    const { permission } = await readJson(req);
    if (permission !== null && !REPOSITORY_ROLES.includes(permission as RepositoryRole)) {
      throw new ForgeError(422, `permission must be one of ${REPOSITORY_ROLES.join(", ")}, or null`);
    }
    if (!state.repositories.has(fullName)) throw new ForgeError(404, `No repository ${fullName}`);
    state.people.setCollaborator(fullName, user, permission as RepositoryRole | null);
    sendJson(res, 200, { full_name: fullName, user, permission });
    return true;
  }
  return false;
}
