import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, PROMPT_HASH_VERSION, promptHash } from "./prompt-hash";
import type { ChatPayload } from "./types";

const messages: ChatPayload[] = [
  { role: "system", content: "sys" },
  { role: "user", content: 'héllo "there"\n' },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "shell", arguments: '{"command":"ls"}' } }] },
  { role: "tool", tool_call_id: "c1", content: "ok" },
];
const tools = [{ type: "function", function: { name: "shell", parameters: { type: "object", properties: { command: { type: "string" } } } } }];

describe("prompt hash (PROJ-010)", () => {
  it("PROJ-010: canonical JSON sorts keys and has no whitespace", () => {
    expect(canonicalJson({ b: 1, a: [true, null, "x"], c: { z: 0, y: undefined } })).toBe('{"a":[true,null,"x"],"b":1,"c":{"z":0}}');
  });

  it("PROJ-010: prompt hash is stable across key order", async () => {
    const reordered: ChatPayload[] = [
      { content: "sys", role: "system" },
      { content: 'héllo "there"\n', role: "user" },
      { tool_calls: [{ function: { arguments: '{"command":"ls"}', name: "shell" }, type: "function", id: "c1" }], content: null, role: "assistant" },
      { content: "ok", tool_call_id: "c1", role: "tool" },
    ];
    const toolsReordered = [{ function: { parameters: { properties: { command: { type: "string" } }, type: "object" }, name: "shell" }, type: "function" }];
    expect(await promptHash(reordered, toolsReordered, "gpt-4o")).toBe(await promptHash(messages, tools, "gpt-4o"));
  });

  it("PROJ-010: the hash is SHA-256 over the version, the model, and the digests of the tools and of each message", async () => {
    const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
    const expected = sha([PROMPT_HASH_VERSION, JSON.stringify("gpt-4o"), sha(canonicalJson(tools)), ...messages.map((m) => sha(canonicalJson(m)))].join("\n"));
    expect(await promptHash(messages, tools, "gpt-4o")).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it("PROJ-010: any change to model, message text or tools changes the hash", async () => {
    const base = await promptHash(messages, tools, "gpt-4o");
    expect(await promptHash(messages, tools, "gpt-4o-mini")).not.toBe(base);
    expect(await promptHash([...messages.slice(0, 3), { role: "tool", tool_call_id: "c1", content: "ok " }], tools, "gpt-4o")).not.toBe(base);
    expect(await promptHash(messages, [], "gpt-4o")).not.toBe(base);
    // Order matters, and a message cannot move into the tools' place.
    expect(await promptHash([...messages].reverse(), tools, "gpt-4o")).not.toBe(base);
    expect(await promptHash(messages.slice(1), [messages[0]], "gpt-4o")).not.toBe(base);
  });
});

describe("promptHash cache", () => {
  it("PROJ-010: a second call on the same payload objects (served from the digest cache) gives the same hash as fresh copies", async () => {
    const messages = [
      { role: "system", content: "s" },
      { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "n", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c", content: "r" },
    ] as const;
    const tools = [{ type: "function", function: { name: "n", parameters: { type: "object", b: 1, a: 2 } } }];
    const first = await promptHash(messages as never, tools, "m");
    expect(await promptHash(messages as never, tools, "m")).toBe(first);
    expect(await promptHash(structuredClone(messages) as never, structuredClone(tools), "m")).toBe(first);
  });

  it("PROJ-010: each run's own copy of the same tools hashes as the first, and a copy that differs in one value does not", async () => {
    const tools = [{ type: "function", function: { name: "shell", description: "Runs a command", parameters: { type: "object" } } }];
    const first = await promptHash(messages, tools, "m");
    expect(await promptHash(messages, structuredClone(tools), "m")).toBe(first);
    const changed = structuredClone(tools);
    changed[0]!.function.description = "Runs a command.";
    const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
    const expected = sha(["prompt-hash-v1", JSON.stringify("m"), sha(canonicalJson(changed)), ...messages.map((m) => sha(canonicalJson(m)))].join("\n"));
    expect(await promptHash(messages, changed, "m")).toBe(expected);
    expect(expected).not.toBe(first);
  });
});
