/**
 * The composed system prompt: the content of row 0 of every run kind (RUN-010), with the
 * sections <guidelines>, <task>, <state>, <memory> in that order (OP-RUN-7).
 *
 * It is composed once, at run creation, and never recomposed (RUN-012): Memory is only the
 * opening <memory> section (RUN-013), and notes, scripts, secrets and the UTC clock are only
 * the opening State snapshot (RUN-014). The agent refreshes those catalogs with tools.
 * The output is a pure function of the input, so a stored row can be recomposed to check it.
 */

import { historyLine } from "../group/history";

export type RunKind = "direct" | "group" | "schedule" | "task";
type HistoryRow = Parameters<typeof historyLine>[0];

export interface SystemPromptInput {
  agent: { name: string; instructions: string };
  /** Run creation time: the State clock (UTC). */
  now: Date;
  /** The run's starting tool-call budget (GEN-014). */
  maxToolCalls: number;
  kind: RunKind;
  /** Note titles only; bodies are read with note_read. */
  notes: readonly { title: string }[];
  /** Name and description only (SEC-006, EXACT-022): values never reach the prompt. */
  secrets: readonly { name: string; description: string }[];
  /** The script catalog when scripting is on; undefined when scripting is off. */
  scripts?: readonly { name: string; description: string }[];
  /** A coding agent's repositories (REPO-013): where each is cloned; live git state is not State. */
  repositories?: readonly { name: string; path: string; default_branch: string }[];
  memory: { enabled: boolean; content: string };
  /** Group runs: the public rows through the delivery's snapshot seq (GROUP-003/004). */
  groupChat?: { throughSeq: number; history: readonly HistoryRow[] };
}

/** The fixed platform guidelines: how to work in a run, the budget and durable findings. */
export const PLATFORM_GUIDELINES = [
  "You are an agent on the Guilds platform, working inside a run: this conversation and its tool results.",
  "- Call tools one at a time when a result decides what comes next; check each result before the next call.",
  "- Every tool result counts against this run's tool budget (max_tool_calls in State); a batch of calls costs one call each.",
  "- Each tool result ends with `remaining_tool_calls: N`. When it runs low, write durable findings and finish with text.",
  "- This conversation is not carried into other runs. Keep durable findings in notes (note_write) or records (record_create).",
  "- State is a snapshot taken when this run was created and is not refreshed; call the tools (note_list, …) for current data.",
  "- Secrets are environment variables in your sandbox, named as listed in State. Never write their values into replies, notes or records.",
  "- Finish with a plain text reply without tool calls.",
].join("\n");

const RUN_KIND_TEXT: Record<RunKind, string> = {
  direct: "direct (a chat with the operator; later messages may follow)",
  group: "group (a one-shot delivery of group chat; the run completes after this reply)",
  schedule: "schedule (a one-shot wake-up; the run completes after this reply)",
  task: "task (work on one task in its repository; each reply ends a turn, and messages from people may follow)",
};

/**
 * The content of the opening system row.
 *
 * @example
 * composeSystemPrompt({
 *   agent: { name: "Scout", instructions: "Watch the repo." },
 *   now: new Date("2026-01-01T00:00:00Z"), maxToolCalls: 50, kind: "direct",
 *   notes: [{ title: "todo" }], secrets: [{ name: "GITHUB_TOKEN", description: "read-only" }],
 *   memory: { enabled: false, content: "" },
 * }) // "<guidelines>\n…\n</guidelines>\n\n<task>\n…</task>\n\n<state>\n…\n</state>\n\n<memory>\nMemory is off.\n</memory>"
 */
export function composeSystemPrompt(input: SystemPromptInput): string {
  return [
    section("guidelines", PLATFORM_GUIDELINES),
    section("task", taskText(input)),
    section("state", stateText(input)),
    section("memory", memoryText(input.memory)),
  ].join("\n\n");
}

function taskText(input: SystemPromptInput): string {
  const instructions = input.agent.instructions.trim();
  return [`You are ${oneLine(input.agent.name)}.`, instructions.length > 0 ? instructions : "No instructions were given. Follow the operator's messages."].join(
    "\n\n",
  );
}

function stateText(input: SystemPromptInput): string {
  const lines = [
    `utc_now: ${input.now.toISOString()}`,
    `run_kind: ${RUN_KIND_TEXT[input.kind]}`,
    `max_tool_calls: ${input.maxToolCalls}`,
    "",
    ...list(
      "notes",
      input.notes.map((n) => oneLine(n.title)),
      "none; note_list shows the current titles",
    ),
    "",
    ...list(
      "secrets (environment variables in your sandbox; values are not shown)",
      // Only name and description are read, whatever else the caller's objects hold.
      input.secrets.map((s) => entry(s.name, s.description)),
      "none",
    ),
  ];
  if (input.groupChat) {
    lines.push(
      "",
      ...list(
        `group_chat_history (public rows through seq ${input.groupChat.throughSeq}; post with group_post)`,
        input.groupChat.history.map(historyLine),
        "none",
      ),
    );
  }
  if (input.scripts !== undefined) {
    lines.push(
      "",
      ...list(
        "scripts (run with script_run)",
        input.scripts.map((s) => entry(s.name, s.description)),
        "none",
      ),
    );
  }
  if (input.repositories !== undefined) {
    lines.push(
      "",
      ...list(
        "repositories (cloned before each generation; fetch, branch, commit and push with git in shell)",
        input.repositories.map((r) => `${oneLine(r.name)}: ${oneLine(r.path)} (default branch ${oneLine(r.default_branch)})`),
        "none",
      ),
    );
  }
  return lines.join("\n");
}

function memoryText(memory: SystemPromptInput["memory"]): string {
  if (!memory.enabled) return "Memory is off.";
  const content = memory.content.trim();
  return content.length > 0 ? content : "Memory is empty.";
}

function list(title: string, items: string[], empty: string): string[] {
  if (items.length === 0) return [`${title}: ${empty}`];
  return [`${title}:`, ...items.map((item) => `- ${item}`)];
}

function entry(name: string, description: string): string {
  const text = oneLine(description);
  return text.length > 0 ? `${oneLine(name)}: ${text}` : oneLine(name);
}

/** Catalog entries are one line each, so a title cannot forge further entries or lines. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * One tagged section. Tags of the four sections inside the text become `&lt;task>`, so
 * instructions, Memory or a note title cannot end a section early or open a forged one.
 */
function section(tag: string, text: string): string {
  const safe = text.replace(/<(\/?(?:guidelines|task|state|memory))>/gi, "&lt;$1>");
  return `<${tag}>\n${safe}\n</${tag}>`;
}
