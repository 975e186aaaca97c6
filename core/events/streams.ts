import * as z from "zod";
import { TASK_OUTCOMES, TASK_STATUSES } from "../tasks/outcome";
import { GroupMessage } from "../validation/group-chat";
import { Message } from "./message";

/**
 * The events of the API's three Server-Sent Events streams (SSE-001..005, TASK-004), one
 * schema per event name. This is the one list: the objects' hubs take their event names
 * and data types from it (durable-objects/common/sse-hub.ts), the OpenAPI document
 * describes each stream from it (eventStreamSchema), and a test checks that every name an
 * emitter publishes is here.
 *
 * On the wire an event is `event: <name>`, an `id: <seq>` line for rows only, and
 * `data: <the JSON of the schema>`.
 */

/** `delta`: text the model streams before its assistant row commits (UI-008). */
export const RunDeltaEvent = z
  .object({ run_id: z.uuid(), generation: z.int(), kind: z.enum(["content", "reasoning"]), text: z.string() })
  .meta({ id: "RunDeltaEvent", description: "Text the model streams before its assistant row commits; not history (no id)" });

/** `status`: on connect, after the replayed rows, and when a generation starts or ends. */
export const RunStatusEvent = z
  .object({
    run_id: z.uuid(),
    status: z.enum(["active", "completed"]).optional().describe("Absent on the status a new subscriber gets after its replay"),
    generating: z.boolean(),
    generation: z.int().optional(),
  })
  .meta({ id: "RunStatusEvent", description: "Whether the run generates now; sent after the replay on connect and when a generation starts or ends" });

/** `error`: a generation's error, as appended to the run's errors. */
export const RunErrorEvent = z
  .looseObject({
    run_id: z.uuid(),
    code: z.string(),
    message: z.string(),
    generation: z.int().nullable().optional(),
    operation: z.string().optional(),
    at: z.iso.datetime().optional(),
  })
  .meta({ id: "RunErrorEvent", description: "An error of the run's generation, as the run's errors record it" });

/** `run.continued`: the run handed off to a continuation (CHAIN-011, SSE-004). */
export const RunContinuedEvent = z
  .object({ run_id: z.uuid().describe("The continuation"), previous_run_id: z.uuid(), root_run_id: z.uuid(), index: z.int().min(2) })
  .meta({ id: "RunContinuedEvent", description: "The run was continued by a new run of its chain; sent on the continued run's stream and its chain root's" });

/** `gap`: a reconnecting subscriber was further behind than the replay goes. */
export const StreamGapEvent = z
  .object({ after_seq: z.int(), resumes_at_seq: z.int() })
  .meta({ id: "StreamGapEvent", description: "The rows after after_seq and before resumes_at_seq are not replayed: read them through the API" });

/** `delivery`: an agent started or finished reading the guild's chat in a group run. */
export const DeliveryEvent = z
  .object({ agent_id: z.uuid(), agent_name: z.string(), run_id: z.uuid(), through_seq: z.int(), state: z.enum(["started", "completed"]) })
  .meta({ id: "DeliveryEvent", description: "An agent started or finished reading the chat through through_seq" });

/** The guild stream's `status`: the deliveries in progress, so a page opened mid-read shows them. */
export const GuildStatusEvent = z
  .object({ guild_id: z.uuid(), reading: z.array(DeliveryEvent) })
  .meta({ id: "GuildStatusEvent", description: "Sent after the replay on connect: the deliveries in progress" });

/** `agent.scripts.changed`: an agent's script catalog changed (SCRIPT-040, SSE-005; a replace is `create`). */
export const ScriptsChangedEvent = z
  .object({ agent_id: z.uuid(), action: z.enum(["create", "delete", "clear"]), name: z.string().optional().describe("Absent for clear") })
  .meta({ id: "ScriptsChangedEvent", description: "One of the guild's agents created, replaced (create), deleted or cleared its scripts" });
export type ScriptsChangedEvent = z.output<typeof ScriptsChangedEvent>;

/** A row of a task's stream: its run's row, renumbered so Last-Event-ID resumes across the task's runs. */
export const TaskStreamRow = Message.extend({
  seq: z.int().describe("The stream's sequence: the run's ordinal among the task's runs times 1,000,000 plus row_seq"),
  run_id: z.uuid(),
  row_seq: z.int().describe("The row's seq in its run"),
}).meta({ id: "TaskStreamRow", description: "A row of the task's latest run" });

const TaskStatus = z.enum(TASK_STATUSES);

/** The task stream's `status`, sent after the replay on connect. */
export const TaskStreamStatusEvent = z
  .object({ status: TaskStatus.nullable(), run_id: z.uuid().nullable() })
  .meta({ id: "TaskStreamStatusEvent", description: "Sent after the replay on connect: the task's status and its latest run" });

export const TaskStatusEvent = z.object({ status: TaskStatus }).meta({ id: "TaskStatusEvent", description: "The task's status changed" });
export const TaskRunStartedEvent = z.object({ run_id: z.uuid() }).meta({ id: "TaskRunStartedEvent", description: "A run of the task started" });
export const TaskRunEndedEvent = z
  .object({ run_id: z.uuid(), outcome: z.enum(TASK_OUTCOMES) })
  .meta({ id: "TaskRunEndedEvent", description: "A run of the task ended, and how" });
export const TaskPullRequestEvent = z
  .object({ number: z.int(), url: z.url() })
  .meta({ id: "TaskPullRequestEvent", description: "The task's draft pull request was opened (TASK-018)" });

/** A check run of the task's branch head as its page shows it. */
export const TaskCheckRun = z
  .object({
    name: z.string(),
    status: z.string().describe("queued, in_progress or completed"),
    conclusion: z.string().nullable().describe("success, failure, timed_out, cancelled, … once completed"),
    url: z.string().nullable().describe("The check run's page on the forge"),
  })
  .meta({ id: "TaskCheckRun" });

/** The checks of the task's branch head when they were last read (ISSUE-33). */
export const TaskChecks = z
  .object({
    head_sha: z.string().describe("The commit the checks ran on: the head of the task's branch"),
    state: z.enum(["none", "pending", "passing", "failing"]),
    runs: z.array(TaskCheckRun),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "TaskChecks" });

export const TaskChecksEvent = TaskChecks.extend({
  awaiting_checks: z.boolean().describe("The pull request is marked ready when the checks pass"),
}).meta({ id: "TaskChecksEvent", description: "The checks of the task's branch head were read again" });

/** A stream's events by name; `message` is the stored row (with `id: <seq>`), `status` the one sent on connect. */
export type EventSchemas = { message: z.ZodType<{ seq: number }>; status: z.ZodType } & Record<string, z.ZodType>;

/** GET /api/runs/:id/events. */
export const RUN_EVENTS = {
  message: Message,
  delta: RunDeltaEvent,
  status: RunStatusEvent,
  error: RunErrorEvent,
  "run.continued": RunContinuedEvent,
} as const satisfies EventSchemas;

/** GET /api/guilds/:id/events. */
export const GUILD_EVENTS = {
  message: GroupMessage,
  gap: StreamGapEvent,
  delivery: DeliveryEvent,
  status: GuildStatusEvent,
  "agent.scripts.changed": ScriptsChangedEvent,
} as const satisfies EventSchemas;

/** GET /api/tasks/:id/events. */
export const TASK_EVENTS = {
  message: TaskStreamRow,
  status: TaskStreamStatusEvent,
  "task.status": TaskStatusEvent,
  "task.run_started": TaskRunStartedEvent,
  "task.run_ended": TaskRunEndedEvent,
  "task.pull_request": TaskPullRequestEvent,
  "task.checks": TaskChecksEvent,
} as const satisfies EventSchemas;

/** Each stream's events, by the stream's name in the contract. */
export const EVENT_STREAMS = { run: RUN_EVENTS, guild: GUILD_EVENTS, task: TASK_EVENTS } as const;

/** The data each event of a stream carries, by event name. */
export type EventData<Events extends EventSchemas> = { [K in keyof Events]: z.output<Events[K]> };
export type RunEventData = EventData<typeof RUN_EVENTS>;
export type GuildEventData = EventData<typeof GUILD_EVENTS>;
export type TaskEventData = EventData<typeof TASK_EVENTS>;

/**
 * One stream's text/event-stream schema: a oneOf of `{event, id?, data}` items, one per
 * event name, each naming its data schema; `x-events` lists the names for readers and tools.
 *
 * @example eventStreamSchema("RunEvent", RUN_EVENTS, "…") // the schema of streamRunEvents' 200
 */
export function eventStreamSchema(id: string, events: EventSchemas, description: string) {
  const names = Object.keys(events);
  const items = names.map((name) =>
    z.object({
      event: z.literal(name),
      ...(name === "message" ? { id: z.string().describe("The row's seq: resume after it with Last-Event-ID") } : {}),
      data: events[name]!,
    }),
  );
  const [first, ...rest] = items;
  return z.discriminatedUnion("event", [first!, ...rest]).meta({ id, description, "x-events": names });
}
