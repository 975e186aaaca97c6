import { EVENT_STREAMS, eventStreamSchema } from "../../core/events/streams";

/**
 * The event streams as the API document describes them: one named schema per stream, a
 * oneOf of its events, each naming its data schema (the list is core/events/streams.ts).
 */

const WIRE =
  "Each event is `event: <name>`, `id: <seq>` for rows only, and `data: <JSON of the event's data schema>`; `: ping` comments keep the stream alive.";

export const RunEvent = eventStreamSchema("RunEvent", EVENT_STREAMS.run, `One event of a run's stream. ${WIRE}`);
export const GuildEvent = eventStreamSchema("GuildEvent", EVENT_STREAMS.guild, `One event of a guild's stream. ${WIRE}`);
export const TaskEvent = eventStreamSchema("TaskEvent", EVENT_STREAMS.task, `One event of a task's stream. ${WIRE}`);
