import type { components } from "./api-schema";

/**
 * The API's wire types under the console's names, all taken from the generated schema
 * (api-schema.d.ts, `npm run api:types`): none is written by hand.
 */
type Schemas = components["schemas"];

export type Guild = Schemas["Guild"];
export type Agent = Schemas["Agent"];
export type AgentCreate = Schemas["AgentCreate"];
export type AgentStatus = Schemas["AgentStatus"];
export type Memory = Schemas["Memory"];
export type Run = Schemas["Run"];
export type RunKind = Schemas["RunKind"];
export type RunError = Run["errors"][number];
/** A committed row of a run (GET messages, SSE `message`). */
export type Row = Schemas["Message"];
export type PromptReplay = Schemas["PromptReplay"];
export type Schedule = Schemas["Schedule"];
export type ScheduleCreate = Schemas["ScheduleCreate"];
export type WakeWindow = Schemas["WakeWindow"];
export type Usage = Schemas["Usage"];
export type Counters = Schemas["UsageCounters"];
export type Organisation = Schemas["Organisation"];
export type ChatPage = Schemas["GroupMessagePage"];
/** A public row of the guild's chat (GET chat, SSE `message`). */
export type GroupMessage = Schemas["GroupMessage"];
/** An API token as listed: never its secret. */
export type ApiToken = Schemas["Token"];
/** The create answer: the token and, this once, its secret. */
export type CreatedToken = Schemas["TokenCreated"];
/** A secret as listed: name, description, scope and grants, never its value. */
export type Secret = Schemas["Secret"];
export type SecretGrant = Schemas["SecretGrant"];
/** One of an agent's next deadlines (a routine's wake-up, a group delivery, a sandbox's idle timeout). */
export type AgentDeadline = Schemas["Deadline"];
export type UsageDay = Schemas["UsageDay"];
export type UsageDaily = Schemas["UsageDaily"];
export type UsageSummary = Schemas["UsageSummary"];
export type RunPage = Schemas["RunPage"];
/** A secret the agent asked the operator for in a direct run (secret_request). */
export type SecretRequest = Schemas["SecretRequest"];
/** The agent's box and where it stands. */
export type SandboxState = Schemas["SandboxState"];
export type BrowserView = Schemas["BrowserView"];
export type CliView = Schemas["CliView"];
/** One of an agent's scripts, with its source and where a run finds it. */
export type Script = Schemas["Script"];
/** Who wrote a script's version: a run at its step, or a person's API token. */
export type ScriptAuthor = Schemas["ScriptAuthor"];
/** The body that creates or replaces a script. */
export type ScriptWrite = Schemas["ScriptWrite"];
/** One version in a script's history, with who wrote it. */
export type ScriptVersion = Schemas["ScriptVersion"];
/** An installation of the platform's GitHub App the organisation connected. */
export type GitHubConnection = Schemas["GitHubConnection"];
/** A repository the guild's coding agents clone. */
export type Repository = Schemas["Repository"];
/** What a run changed in one repository: the diffstat of its checkpoints. */
export type RepoChange = Schemas["RepoChange"];
/** One repository's diff of a run, redacted, at most 256 KiB. */
export type RepoDiff = Schemas["RepoDiff"];
/** A task for a coding agent in one of the guild's repositories, keyed `<PREFIX>-<n>`. */
export type Task = Schemas["Task"];
/** One run of a task (one box's lifetime), its transcript the run `run_id`. */
export type TaskRun = Schemas["TaskRun"];
/** A message for a task's agent: queued until a run delivers it at a turn boundary. */
export type TaskMessage = Schemas["TaskMessage"];
export type McpConnection = Schemas["McpConnection"];
export type McpTool = Schemas["McpTool"];
export type McpPreset = Schemas["McpPreset"];
/** A what-if variant of a recorded model call (decision 0022). */
export type Variant = Schemas["Variant"];
