import * as z from "zod";
import { idInput } from "../../core/validation/fields";

/**
 * GitHub connections and guild repositories on the wire (OP-REPO-6). A repository is named by
 * its full name only; where it is cloned from is the platform's choice, never the tenant's.
 */

/**
 * Body of `POST /api/github/connections`: what GitHub's redirect to the setup URL carried
 * after the install page that `POST /api/github/claims` gave.
 */
export const GitHubConnectionCreate = z
  .strictObject({
    installation_id: z.int().min(1).max(Number.MAX_SAFE_INTEGER).describe("The GitHub App installation id, as GitHub's redirect to the setup URL names it"),
    code: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,512}$/, "must be the code GitHub's redirect carries")
      .describe("The OAuth code GitHub's redirect carries (the App requests user authorization during installation)"),
    state: z
      .string()
      .min(1)
      .max(512)
      .describe(
        "The state of the install URL from POST /api/github/claims, passed back by GitHub's redirect; good once, for ten minutes, for this organisation only",
      ),
  })
  .meta({ id: "GitHubConnectionCreate" });

/** Answer of `POST /api/github/claims`: where to install the App, with a state bound to the organisation. */
export const GitHubClaim = z
  .object({
    install_url: z.url().describe("GitHub's install page of the platform's App; GitHub sends the user back to the setup URL with the state"),
    state: z.string().describe("Signed for this organisation, single use"),
    expires_at: z.iso.datetime().describe("After this the state is refused (ten minutes)"),
  })
  .meta({ id: "GitHubClaim" });

export const GitHubConnection = z
  .object({
    id: z.uuid(),
    installation_id: z.int(),
    account_login: z.string().describe("The GitHub account the installation belongs to"),
    created_at: z.iso.datetime(),
    disconnected_at: z.iso.datetime().nullable().describe("Set once disconnected; its repositories then fail generation start with repository.token"),
  })
  .meta({ id: "GitHubConnection" });

export const GitHubConnectionList = z
  .object({
    data: z.array(GitHubConnection),
    configured: z
      .boolean()
      .describe(
        "Whether the platform has a GitHub App with what claiming needs (its slug and OAuth client); without them, connecting answers 503 github.not_configured",
      ),
  })
  .meta({ id: "GitHubConnectionList" });

/** GitHub's account names: alphanumerics and single inner hyphens, at most 39. */
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
/** GitHub's repository names: letters, digits, ".", "_" and "-", at most 100. */
const REPO = /^[A-Za-z0-9._-]{1,100}$/;

/** `owner/repo`; the clone URL appends `.git`, so a name may not end with it. */
export const fullName = z
  .string()
  .refine((value) => {
    const [owner, repo, ...rest] = value.split("/");
    return rest.length === 0 && OWNER.test(owner ?? "") && REPO.test(repo ?? "") && repo !== "." && repo !== ".." && !repo!.toLowerCase().endsWith(".git");
  }, 'must be a GitHub "owner/repo"')
  .describe("owner/repo on GitHub");

/** A branch name git accepts (check-ref-format, kept simple): no spaces, "..", "@{", leading "-" or "/". */
export const branchName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^(?![-/.])(?!.*(?:\.\.|@\{|\/\/|\/\.|\.lock$|[/.]$))[A-Za-z0-9._/-]+$/, "must be a git branch name");

/**
 * The issue label that files a task for the repository's task agent, as GitHub takes label
 * names: 1..50 characters, no comma (GitHub reads one as a list), no leading or trailing space.
 */
export const triggerLabel = z
  .string()
  .min(1)
  .max(50)
  .regex(/^[^,\r\n]*$/, "must not contain a comma or a line break")
  .regex(/^\S(?:.*\S)?$/, "must not start or end with a space")
  .describe("The issue label that files a task for the task agent (compared without case, as GitHub compares labels)");

const taskAgentId = idInput()
  .nullable()
  .describe("A coding agent of the guild that issues of the repository file tasks for (labelled, or an @-mention of its name); null: issues start no task");

/** Body of `POST /api/guilds/:id/repositories`. */
export const RepositoryCreate = z
  .strictObject({
    full_name: fullName,
    connection_id: idInput()
      .nullable()
      .default(null)
      .describe("The GitHub connection whose installation reaches it; null or absent: a public repository cloned anonymously"),
    default_branch: branchName.default("main"),
    task_agent_id: taskAgentId.default(null),
    trigger_label: triggerLabel.default("agent"),
  })
  .meta({ id: "RepositoryCreate" });

/** Body of `PATCH /api/repositories/:id`: what issues do to the repository's tasks; absent fields stay. */
export const RepositoryPatch = z
  .strictObject({
    task_agent_id: taskAgentId.optional(),
    trigger_label: triggerLabel.optional(),
  })
  .meta({ id: "RepositoryPatch" });

export const Repository = z
  .object({
    id: z.uuid(),
    guild_id: z.uuid(),
    full_name: z.string(),
    name: z.string().describe("The folder under /home/agent/repos: the repo part of full_name"),
    default_branch: z.string(),
    connection_id: z.uuid().nullable(),
    clone_url: z.string().describe("Derived from the platform's git base and full_name"),
    task_agent_id: z.uuid().nullable().describe("The coding agent issues of the repository file tasks for; null: issues start no task"),
    trigger_label: z.string().describe("The issue label that files a task for the task agent"),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Repository" });

export const RepositoryList = z.object({ data: z.array(Repository) }).meta({ id: "RepositoryList" });

export type RepositoryCreate = z.infer<typeof RepositoryCreate>;
export type RepositoryPatch = z.infer<typeof RepositoryPatch>;
