import { describe, expect, it } from "vitest";
import { MESSAGES_LIMITS, readMessagesRequest } from "./messages";

const base = { model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "user", content: "Hi" }] };

function refusal(body: unknown): string {
  const read = readMessagesRequest(body);
  if (read.ok) throw new Error("expected a refusal");
  return read.message;
}

describe("reading a Messages request", () => {
  it("reads a harness's request, ignoring top-level fields and block fields it does not know", () => {
    const read = readMessagesRequest({
      ...base,
      system: [{ type: "text", text: "You are a coding agent.", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "Read it", cache_control: { type: "ephemeral" } }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "ok", signature: "s" },
            { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/a" } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "1\tA" }], is_error: false }] },
      ],
      tools: [{ name: "Read", description: "Reads a file", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }],
      tool_choice: { type: "auto" },
      temperature: 1,
      stream: true,
      metadata: { user_id: "user_1" },
      thinking: { type: "enabled", budget_tokens: 4000 },
      context_management: { edits: [] },
      service_tier: "auto",
    });
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.request).not.toHaveProperty("context_management");
    expect(read.request.system).toEqual([{ type: "text", text: "You are a coding agent." }]);
    expect(read.request.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: "Read it" }] });
    expect(read.request.tools).toEqual([{ name: "Read", description: "Reads a file", input_schema: { type: "object" } }]);
    expect(read.request.thinking).toEqual({ type: "enabled", budget_tokens: 4000 });
  });

  it("refuses a malformed block, naming the field", () => {
    const messages = [
      { role: "user", content: "Go" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: {} }] },
      {
        role: "user",
        content: [
          { type: "text", text: "x" },
          { type: "tool_result", tool_use_id: 7 },
        ],
      },
    ];
    expect(refusal({ ...base, messages })).toBe("messages[2].content[1].tool_use_id must be a string");
    messages[2] = { role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png" } }] } as never;
    expect(refusal({ ...base, messages })).toBe("messages[2].content[0].source.data must be a string");
    messages[2] = { role: "user", content: [{ type: "image", source: { type: "file", file_id: "file_1" } }] } as never;
    expect(refusal({ ...base, messages })).toMatch(/^messages\[2\]\.content\[0\]\.source\.type must be "base64" or "url"/);
    messages[2] = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "tool_use" }] }] } as never;
    expect(refusal({ ...base, messages })).toMatch(/^messages\[2\]\.content\[0\]\.content\[0\]\.type "tool_use" is not allowed here/);
    messages[2] = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", is_error: "yes" }] } as never;
    expect(refusal({ ...base, messages })).toBe("messages[2].content[0].is_error must be a boolean");
  });

  it("refuses blocks in the wrong role and block types it does not know", () => {
    expect(refusal({ ...base, messages: [{ role: "user", content: [{ type: "tool_use", id: "t", name: "n", input: {} }] }] })).toMatch(
      /^messages\[0\]\.content\[0\]\.type "tool_use" is not allowed here; expected one of text, image, document, tool_result/,
    );
    expect(refusal({ ...base, messages: [{ role: "assistant", content: [{ type: "tool_result", tool_use_id: "t" }] }] })).toMatch(/is not allowed here/);
    expect(refusal({ ...base, messages: [{ role: "user", content: [{ type: "search_result" }] }] })).toMatch(
      /^messages\[0\]\.content\[0\]\.type "search_result" is not supported/,
    );
    expect(refusal({ ...base, messages: [{ role: "developer", content: "x" }] })).toBe('messages[0].role must be "user", "assistant" or "system"');
    // Claude Code's system turns among the messages are taken, with text only.
    expect(refusal({ ...base, messages: [{ role: "system", content: [{ type: "tool_use", id: "t", name: "n", input: {} }] }] })).toMatch(/is not allowed here/);
    expect(refusal({ ...base, messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "n", input: [] }] }] })).toBe(
      "messages[0].content[0].input must be an object",
    );
  });

  it("refuses server tools clearly, and accepts custom ones typed or not", () => {
    const tools = [
      { name: "Read", input_schema: { type: "object" } },
      { type: "custom", name: "Edit", input_schema: { type: "object" } },
      { type: "web_search_20250305", name: "web_search", max_uses: 5 },
    ];
    expect(refusal({ ...base, tools })).toBe(
      'tools[2] is a server tool (type "web_search_20250305"), which the model gateway cannot offer; only custom tools are carried',
    );
    expect(readMessagesRequest({ ...base, tools: tools.slice(0, 2) }).ok).toBe(true);
    expect(refusal({ ...base, tools: [{ name: "Read" }] })).toBe("tools[0].input_schema must be an object");
  });

  it("refuses the top-level fields' bad values, naming each", () => {
    expect(refusal(null)).toBe("the request body must be an object");
    expect(refusal({ ...base, model: "" })).toBe("model must not be empty");
    expect(refusal({ ...base, max_tokens: 0 })).toBe(`max_tokens must be a whole number from 1 to ${MESSAGES_LIMITS.maxTokens}`);
    expect(refusal({ ...base, max_tokens: 10.5 })).toMatch(/^max_tokens must be a whole number/);
    expect(refusal({ ...base, messages: [] })).toBe("messages must hold at least one message");
    expect(refusal({ ...base, temperature: 3 })).toBe("temperature must be a number from 0 to 1");
    expect(refusal({ ...base, tool_choice: { type: "sometimes" } })).toBe('tool_choice.type must be "auto", "any", "tool" or "none"');
    expect(refusal({ ...base, tool_choice: { type: "tool" } })).toBe("tool_choice.name must be a string");
    expect(refusal({ ...base, stop_sequences: ["\n\nHuman:", 3] })).toBe("stop_sequences[1] must be a string");
    expect(refusal({ ...base, system: [{ type: "image" }] })).toMatch(/^system\[0\]\.type "image" is not allowed here/);
    expect(refusal({ ...base, stream: "yes" })).toBe("stream must be a boolean");
  });

  it("bounds messages, tools and how deep a tool's input nests", () => {
    const messages = Array.from({ length: MESSAGES_LIMITS.messages + 1 }, () => ({ role: "user", content: "x" }));
    expect(refusal({ ...base, messages })).toBe(`messages holds ${MESSAGES_LIMITS.messages + 1} items; at most ${MESSAGES_LIMITS.messages} are accepted`);
    const tools = Array.from({ length: MESSAGES_LIMITS.tools + 1 }, (_, i) => ({ name: `t${i}`, input_schema: {} }));
    expect(refusal({ ...base, tools })).toBe(`tools holds ${MESSAGES_LIMITS.tools + 1} items; at most ${MESSAGES_LIMITS.tools} are accepted`);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) deep = { a: deep };
    expect(refusal({ ...base, messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "n", input: deep }] }] })).toBe(
      `messages[0].content[0].input nests deeper than ${MESSAGES_LIMITS.jsonDepth} levels`,
    );
  });
});
