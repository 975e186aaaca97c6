import { describe, expect, it } from "vitest";
import { type MessagesRequest, readMessagesRequest } from "./messages";
import { chatRequestOf, ERROR_MARK, NO_RESULT } from "./to-chat";

function read(body: unknown): MessagesRequest {
  const result = readMessagesRequest(body);
  if (!result.ok) throw new Error(result.message);
  return result.request;
}

const READ_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: { file_path: { type: "string", description: "The absolute path" } },
  required: ["file_path"],
  additionalProperties: false,
};
const BASH_SCHEMA = { type: "object", properties: { command: { type: "string" }, description: { type: "string" } }, required: ["command"] };

/** Shaped as a coding harness sends it: system blocks with cache marks, reminders, thinking, two calls answered out of order. */
const harnessRequest = {
  model: "claude-sonnet-4-5-20250929",
  max_tokens: 32000,
  system: [
    { type: "text", text: "You are a coding agent.", cache_control: { type: "ephemeral" } },
    { type: "text", text: "Work in /repo. Be concise.", cache_control: { type: "ephemeral" } },
  ],
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "<system-reminder>Today is Monday.</system-reminder>" },
        { type: "text", text: "What does the README say? Here is a screenshot.", cache_control: { type: "ephemeral" } },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "I should read it and list the files.", signature: "EqQBCgIYAh" },
        { type: "text", text: "I'll read the README and list the files." },
        { type: "tool_use", id: "toolu_01A", name: "Read", input: { file_path: "/repo/README.md" } },
        { type: "tool_use", id: "toolu_01B", name: "Bash", input: { command: "ls", description: "List files" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_01B", content: "README.md\nsrc" },
        {
          type: "tool_result",
          tool_use_id: "toolu_01A",
          content: [
            { type: "text", text: "     1\t# App" },
            { type: "image", source: { type: "url", url: "https://example.com/diagram.png" } },
          ],
        },
        { type: "text", text: "Also check the tests." },
      ],
    },
  ],
  tools: [
    { name: "Read", description: "Reads a file from the local filesystem.", input_schema: READ_SCHEMA },
    { name: "Bash", description: "Runs a shell command.", input_schema: BASH_SCHEMA },
  ],
  temperature: 1,
  stream: true,
  metadata: { user_id: "user_abc_account_1" },
  thinking: { type: "enabled", budget_tokens: 4000 },
};

describe("a Messages request as a Chat Completions request", () => {
  it("translates a harness's request: system, parts, calls, tool messages in call order, carried images, tools", () => {
    expect(chatRequestOf(read(harnessRequest), "gpt-4.1")).toEqual({
      model: "gpt-4.1",
      max_tokens: 32000,
      temperature: 1,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "You are a coding agent.\n\nWork in /repo. Be concise." },
        {
          role: "user",
          content: [
            { type: "text", text: "<system-reminder>Today is Monday.</system-reminder>" },
            { type: "text", text: "What does the README say? Here is a screenshot." },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
        {
          role: "assistant",
          content: "I'll read the README and list the files.",
          tool_calls: [
            { id: "toolu_01A", type: "function", function: { name: "Read", arguments: '{"file_path":"/repo/README.md"}' } },
            { id: "toolu_01B", type: "function", function: { name: "Bash", arguments: '{"command":"ls","description":"List files"}' } },
          ],
        },
        { role: "tool", tool_call_id: "toolu_01A", content: "     1\t# App\n[image]" },
        { role: "tool", tool_call_id: "toolu_01B", content: "README.md\nsrc" },
        {
          role: "user",
          content: [
            { type: "text", text: "Image from the result of tool call toolu_01A:" },
            { type: "image_url", image_url: { url: "https://example.com/diagram.png" } },
            { type: "text", text: "Also check the tests." },
          ],
        },
      ],
      tools: [
        { type: "function", function: { name: "Read", description: "Reads a file from the local filesystem.", parameters: READ_SCHEMA } },
        { type: "function", function: { name: "Bash", description: "Runs a shell command.", parameters: BASH_SCHEMA } },
      ],
    });
  });

  it("TASK-016: carries Claude Code's system turns as system messages, one between a call and its result after the result", () => {
    const request = read({
      model: "m",
      max_tokens: 10,
      messages: [
        { role: "system", content: "The environment: Linux." },
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }] },
        { role: "system", content: [{ type: "text", text: "Tools changed." }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.txt" }] },
      ],
    });
    expect(chatRequestOf(request, "gpt").messages.map((m) => [m.role, m.content])).toEqual([
      ["system", "The environment: Linux."],
      ["user", "go"],
      ["assistant", null],
      ["tool", "a.txt"],
      ["system", "Tools changed."],
    ]);
  });

  it("maps tool_choice, parallel calls, stop sequences and sampling; drops top_k, metadata and thinking", () => {
    const tools = [{ name: "Read", input_schema: READ_SCHEMA }];
    const chat = (extra: object) => chatRequestOf(read({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }], tools, ...extra }), "p");
    expect(chat({ tool_choice: { type: "auto" } }).tool_choice).toBe("auto");
    expect(chat({ tool_choice: { type: "any" } }).tool_choice).toBe("required");
    expect(chat({ tool_choice: { type: "none" } }).tool_choice).toBe("none");
    expect(chat({ tool_choice: { type: "tool", name: "Read", disable_parallel_tool_use: true } })).toMatchObject({
      tool_choice: { type: "function", function: { name: "Read" } },
      parallel_tool_calls: false,
    });
    const sampled = chat({ top_p: 0.9, top_k: 40, stop_sequences: ["END"], temperature: 0.2, stream: false });
    expect(sampled).toMatchObject({ top_p: 0.9, temperature: 0.2, stop: ["END"] });
    expect(sampled).not.toHaveProperty("top_k");
    expect(sampled).not.toHaveProperty("stream");
    expect(sampled).not.toHaveProperty("tool_choice");
    const bare = chatRequestOf(read({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }], tool_choice: { type: "any" } }), "p");
    expect(bare).not.toHaveProperty("tools");
    expect(bare).not.toHaveProperty("tool_choice");
  });

  it("marks an error result, answers a call left unanswered, and turns a result no call asked for into text", () => {
    const request = read({
      model: "m",
      max_tokens: 10,
      messages: [
        { role: "user", content: "Go" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: {} }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "command not found", is_error: true },
            { type: "tool_result", tool_use_id: "t9", content: "stray" },
          ],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "t2", name: "Bash", input: { command: "ls" } }] },
        { role: "assistant", content: "Moving on." },
        { role: "user", content: "Thanks" },
      ],
    });
    expect(chatRequestOf(request, "p").messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "t1", content: `${ERROR_MARK}command not found` },
      {
        role: "user",
        content: [
          { type: "text", text: "Result of tool call t9:" },
          { type: "text", text: "stray" },
        ],
      },
      { role: "assistant", content: null, tool_calls: [{ id: "t2", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }] },
      { role: "tool", tool_call_id: "t2", content: NO_RESULT },
      { role: "assistant", content: "Moving on." },
      { role: "user", content: "Thanks" },
    ]);
  });

  it("flattens documents: text under its title, a PDF as a note that it was left out", () => {
    const request = read({
      model: "m",
      max_tokens: 10,
      messages: [
        {
          role: "user",
          content: [
            { type: "document", title: "notes.txt", source: { type: "text", media_type: "text/plain", data: "Buy milk." } },
            { type: "document", title: "spec.pdf", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
            { type: "document", source: { type: "content", content: [{ type: "text", text: "Part one." }] } },
          ],
        },
      ],
    });
    expect(chatRequestOf(request, "p").messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Document: notes.txt\n\nBuy milk." },
          { type: "text", text: "[Document: spec.pdf, application/pdf, left out: this model is reached through an API that carries no documents]" },
          { type: "text", text: "Document" },
          { type: "text", text: "Part one." },
        ],
      },
    ]);
  });
});
