import type { components } from "./api-schema";

/**
 * The API's wire types under the console's names, all taken from the generated schema
 * (api-schema.d.ts, `npm run api:types`): none is written by hand.
 */
type Schemas = components["schemas"];

export type Guild = Schemas["Guild"];
export type Agent = Schemas["Agent"];
export type AgentCreate = Schemas["AgentCreate"];
/** A coding agent's task harness: what generates its task turns. */
export type TaskHarness = Schemas["TaskHarness"];
export type TaskHarnessPatch = Schemas["TaskHarnessPatch"];
export type AgentStatus = Schemas["AgentStatus"];
export type Memory = Schemas["Memory"];
export type Run = Schemas["Run"];
export type RunKind = Schemas["RunKind"];
export type RunError = Run["errors"][number];
/** A committed row of a run (GET messages, SSE `message`). */
export type Row = Schemas["Message"];
/** A row's Chat Completions message, a union by role. */
export type RowPayload = Schemas["MessagePayload"];
export type AssistantPayload = Schemas["AssistantPayload"];
/** What the platform records beside a row (never sent to the model). */
export type RowMetadata = Schemas["MessageMetadata"];
/** One function call of an assistant row. */
export type ToolCall = Schemas["ToolCall"];
/** An assistant row's token counts as the provider reported them. */
export type AssistantUsage = Schemas["AssistantUsage"];
/** An image or file a row references (metadata.attachments). */
export type AttachmentRef = Schemas["AttachmentRef"];
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
/** A grant to a guild or an agent (secrets and MCP connections alike). */
export type SecretGrantCreate = Schemas["SecretGrantCreate"];
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
/** A delivery of the GitHub App's webhook, and what it came to. */
export type GitHubDelivery = Schemas["GitHubDelivery"];
/** A repository the guild's coding agents clone. */
export type Repository = Schemas["Repository"];
/** What a run changed in one repository: the diffstat of its checkpoints. */
export type RepoChange = Schemas["RepoChange"];
/** One repository's diff of a run, redacted, at most 256 KiB. */
export type RepoDiff = Schemas["RepoDiff"];
/** A task for a coding agent in one of the guild's repositories, keyed `<PREFIX>-<n>`. */
export type Task = Schemas["Task"];
/** One attempt of a best-of-N task, as its parent's page shows it side by side. */
export type TaskAttempt = Schemas["TaskAttempt"];
/** One run of a task (one box's lifetime), its transcript the run `run_id`. */
export type TaskRun = Schemas["TaskRun"];
/** A message for a task's agent: queued until a run delivers it at a turn boundary. */
export type TaskMessage = Schemas["TaskMessage"];
export type McpConnection = Schemas["McpConnection"];
export type McpTool = Schemas["McpTool"];
export type McpPreset = Schemas["McpPreset"];
/** One event of a run's stream (GET /api/runs/:id/events), its data decoded. */
export type RunEvent = Schemas["RunEvent"];
/** One event of a guild's stream (GET /api/guilds/:id/events). */
export type GuildEvent = Schemas["GuildEvent"];
/** One event of a task's stream (GET /api/tasks/:id/events). */
export type TaskEvent = Schemas["TaskEvent"];
/** The data of one named event of a stream, e.g. `EventData<GuildEvent, "delivery">`. */
export type EventData<Stream extends { event: string; data: unknown }, Name extends Stream["event"]> = Extract<Stream, { event: Name }>["data"];
/** SSE `delivery`: an agent started or finished reading the chat in a group run. */
export type Delivery = Schemas["DeliveryEvent"];
/** SSE `gap`: the rows after after_seq and before resumes_at_seq were not replayed. */
export type ChatGap = Schemas["StreamGapEvent"];
/** A what-if variant of a recorded model call (decision 0022). */
export type Variant = Schemas["Variant"];
