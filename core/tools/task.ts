/**
 * The two tools of a task run (TASK-015, TASK-016): the agent says the task is done, or asks
 * a person a question. Each only tells the run, which acts at the turn's end: a completed
 * task's run ends, a question is shown and a blocking one waits for an answer.
 */
import * as z from "zod";
import type { ToolDefinition } from "./types";

export const COMPLETE_TASK = "complete_task";
export const ASK_QUESTION = "ask_question";

/** @example complete_task({ summary: "Fixed the login form; added a test." }) */
export const completeTask: ToolDefinition<{ summary: string }> = {
  name: COMPLETE_TASK,
  description:
    "Say the task is done, once your work is committed on the task branch. The summary becomes the pull request's comment; the run ends after this turn.",
  binding: "task",
  parameters: z.strictObject({ summary: z.string().min(1).max(8_000).describe("What you did and how it was checked, for the reviewer") }),
  async execute(args, ctx) {
    if (!ctx.task) throw new Error("complete_task is only offered on task runs");
    ctx.task.complete(args.summary);
    return { content: "The task is marked complete; the run ends after this turn. Finish with a short reply." };
  },
};

/** @example ask_question({ question: "Which API version?", blocking: true }) */
export const askQuestion: ToolDefinition<{ question: string; blocking: boolean }> = {
  name: ASK_QUESTION,
  description:
    "Ask a person a question about the task. blocking: true when you cannot go on without the answer (the run then waits for it); false to go on meanwhile.",
  binding: "task",
  parameters: z.strictObject({
    question: z.string().min(1).max(4_000).describe("The question, on its own"),
    blocking: z.boolean().describe("Whether you must wait for the answer"),
  }),
  async execute(args, ctx) {
    if (!ctx.task) throw new Error("ask_question is only offered on task runs");
    ctx.task.ask(args.question, args.blocking);
    return {
      content: args.blocking
        ? "The question is shown to the task's people. End your turn now; the answer comes as the next message."
        : "The question is shown to the task's people; go on meanwhile. An answer comes as a later message.",
    };
  },
};

export const TASK_TOOLS = [completeTask, askQuestion] as const;
