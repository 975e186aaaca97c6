/**
 * What the model's tool calls write where others read it, redacted with the generation's set
 * (ERR-011): the guild's chat (group_post: every agent of the guild reads it), the agent's
 * Memory (memory_write: the opening of every new run, and the Memory page) and its routines
 * (schedule_create/update: the Routines page and each wake-up's instruction). The calls run
 * with the model's arguments; only these writes carry the marker instead of a value.
 */
import type { Redactor } from "../../../core/output/redaction";
import type { ScheduleTools, ToolContext } from "../../../core/tools/types";

/** group_post through the current redaction set. */
export function redactedPosts(group: NonNullable<ToolContext["group"]>, redactor: () => Redactor): NonNullable<ToolContext["group"]> {
  return { post: (content) => group.post(redactor().redact(content)) };
}

/** memory_write through the current redaction set. */
export function redactedMemory(memory: NonNullable<ToolContext["memory"]>, redactor: () => Redactor): NonNullable<ToolContext["memory"]> {
  return { write: (content) => memory.write(redactor().redact(content)) };
}

/** The schedule tools with a routine's description and instruction redacted as written. */
export function redactedSchedules(schedules: ScheduleTools, redactor: () => Redactor): ScheduleTools {
  return {
    ...schedules,
    create: (input) => schedules.create({ ...input, description: redactor().redact(input.description), instruction: redactor().redact(input.instruction) }),
    update: (id, patch) => schedules.update(id, redactor().redactDeep(patch)),
  };
}
