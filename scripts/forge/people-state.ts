/**
 * Who is who on the forge: organisations with their members (an owner is role `admin`, a
 * member not yet through an invitation is `pending`), and repositories' collaborators with
 * their role. An account is an organisation once it has a membership; any other login is a
 * user. Ids follow from the login, as stable as GitHub's, so nothing about them is saved.
 * What GitHub answers from this: the installations a user sees, whether they administer an
 * installation's account, and their permission on a repository.
 */
import { createHash } from "node:crypto";

/** GitHub's repository roles, weakest first. */
export const REPOSITORY_ROLES = ["read", "triage", "write", "maintain", "admin"] as const;
export type RepositoryRole = (typeof REPOSITORY_ROLES)[number];

export interface Membership {
  /** `admin` is an organisation owner. */
  role: "admin" | "member";
  state: "active" | "pending";
}

export interface SavedPeople {
  organisations: Record<string, Record<string, Membership>>;
  collaborators: Record<string, Record<string, RepositoryRole>>;
}

export class People {
  private readonly organisations = new Map<string, Map<string, Membership>>();
  private readonly collaborators = new Map<string, Map<string, RepositoryRole>>();

  /** A login's id, the same on every start (a user's and an organisation's share a namespace, as on GitHub). */
  static id(login: string): number {
    return (createHash("sha256").update(login.toLowerCase()).digest().readUInt32BE(0) % 2_000_000_000) + 1;
  }

  isOrganisation(login: string): boolean {
    return this.organisations.has(login);
  }

  membership(organisation: string, user: string): Membership | undefined {
    return this.organisations.get(organisation)?.get(user);
  }

  /** Makes `organisation` one (when it was not) and sets the user's membership in it. */
  setMembership(organisation: string, user: string, membership: Membership): void {
    const members = this.organisations.get(organisation) ?? new Map<string, Membership>();
    members.set(user, { ...membership });
    this.organisations.set(organisation, members);
  }

  /** Whether `user` is an active owner of the organisation. */
  owns(organisation: string, user: string): boolean {
    const membership = this.membership(organisation, user);
    return membership?.role === "admin" && membership.state === "active";
  }

  collaborator(fullName: string, user: string): RepositoryRole | undefined {
    return this.collaborators.get(fullName)?.get(user);
  }

  /** Sets the user's role on the repository; none removes them. */
  setCollaborator(fullName: string, user: string, role: RepositoryRole | null): void {
    const roles = this.collaborators.get(fullName) ?? new Map<string, RepositoryRole>();
    if (role === null) roles.delete(user);
    else roles.set(user, role);
    this.collaborators.set(fullName, roles);
  }

  /**
   * The user's role on a repository, as GitHub works it out: the owner account and an owner of
   * the owning organisation administer it; an explicit role counts; an active member has the
   * organisation's base role (read); anyone reads a public one. Undefined: no access.
   */
  role(fullName: string, user: string, isPrivate: boolean): RepositoryRole | undefined {
    const owner = fullName.slice(0, fullName.indexOf("/"));
    if (owner === user || this.owns(owner, user)) return "admin";
    const grants: RepositoryRole[] = [];
    const explicit = this.collaborator(fullName, user);
    if (explicit) grants.push(explicit);
    if (this.membership(owner, user)?.state === "active" || !isPrivate) grants.push("read");
    return grants.sort((a, b) => REPOSITORY_ROLES.indexOf(b) - REPOSITORY_ROLES.indexOf(a))[0];
  }

  toJSON(): SavedPeople {
    const record = <T>(map: Map<string, Map<string, T>>) => Object.fromEntries([...map].map(([key, inner]) => [key, Object.fromEntries(inner)]));
    return { organisations: record(this.organisations), collaborators: record(this.collaborators) };
  }

  /** Absent from states saved before the forge knew people. */
  static fromJSON(saved: SavedPeople | undefined): People {
    const people = new People();
    for (const [organisation, members] of Object.entries(saved?.organisations ?? {})) {
      for (const [user, membership] of Object.entries(members)) people.setMembership(organisation, user, membership);
    }
    for (const [fullName, roles] of Object.entries(saved?.collaborators ?? {})) {
      for (const [user, role] of Object.entries(roles)) people.setCollaborator(fullName, user, role);
    }
    return people;
  }
}
