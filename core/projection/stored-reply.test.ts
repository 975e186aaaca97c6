import { describe, expect, it } from "vitest";
import { Redactor } from "../output/redaction";
import { redactArguments, redactedReply, redactedToolCalls } from "./stored-reply";

describe("stored reply redaction", () => {
  const r = new Redactor([
    { name: "K", value: 'pa"ss\\word\n42' },
    { name: "T", value: "tok-0123456789" },
  ]);

  it("ERR-011: a value in a call's arguments is replaced, the JSON left as the model wrote it", () => {
    expect(redactArguments('{ "command": "curl -H \'x: tok-0123456789\'" }', r)).toBe('{ "command": "curl -H \'x: [REDACTED:T]\'" }');
  });

  it("ERR-011: a value that only appears JSON-escaped is found in the parsed arguments", () => {
    const args = JSON.stringify({ command: `echo ${'pa"ss\\word\n42'}` });
    expect(args).not.toContain('pa"ss');
    const out = redactArguments(args, r);
    expect(JSON.parse(out)).toEqual({ command: "echo [REDACTED:K]" });
  });

  it("ERR-011: arguments that are not JSON are redacted as text; calls keep their id and name", () => {
    const calls = [{ id: "c1", type: "function" as const, function: { name: "shell", arguments: "{broken tok-0123456789" } }];
    expect(redactedToolCalls(calls, r)).toEqual([{ id: "c1", type: "function", function: { name: "shell", arguments: "{broken [REDACTED:T]" } }]);
    const clean = [{ id: "c2", type: "function" as const, function: { name: "shell", arguments: '{"command":"ls"}' } }];
    expect(redactedToolCalls(clean, r)[0]).toBe(clean[0]);
  });

  it("ERR-011 / RUN-016: a reply's content, reasoning, reasoning blocks and arguments are redacted; an empty set leaves it as it is", () => {
    const reply = {
      content: "key tok-0123456789",
      reasoning: "thinking of tok-0123456789",
      reasoningBlocks: [{ type: "reasoning.text", text: "tok-0123456789" }],
      toolCalls: [{ id: "c1", type: "function" as const, function: { name: "shell", arguments: '{"command":"echo tok-0123456789"}' } }],
      usage: null,
    };
    expect(redactedReply(reply, r)).toEqual({
      content: "key [REDACTED:T]",
      reasoning: "thinking of [REDACTED:T]",
      reasoningBlocks: [{ type: "reasoning.text", text: "[REDACTED:T]" }],
      toolCalls: [{ id: "c1", type: "function", function: { name: "shell", arguments: '{"command":"echo [REDACTED:T]"}' } }],
      usage: null,
    });
    expect(redactedReply(reply, new Redactor([]))).toBe(reply);
  });
});
