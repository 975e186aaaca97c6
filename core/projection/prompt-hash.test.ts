import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, promptHash } from "./prompt-hash";
import type { ChatPayload } from "./types";

const messages: ChatPayload[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "héllo \"there\"\n" },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "shell", arguments: "{\"command\":\"ls\"}" } }] },
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
      { content: "héllo \"there\"\n", role: "user" },
      { tool_calls: [{ function: { arguments: "{\"command\":\"ls\"}", name: "shell" }, type: "function", id: "c1" }], content: null, role: "assistant" },
      { content: "ok", tool_call_id: "c1", role: "tool" },
    ];
    const toolsReordered = [{ function: { parameters: { properties: { command: { type: "string" } }, type: "object" }, name: "shell" }, type: "function" }];
    expect(await promptHash(reordered, toolsReordered, "gpt-4o")).toBe(await promptHash(messages, tools, "gpt-4o"));
  });

  it("PROJ-010: the hash is SHA-256 hex of canonical {model, messages, tools}", async () => {
    const expected = createHash("sha256").update(canonicalJson({ messages, model: "gpt-4o", tools }), "utf8").digest("hex");
    expect(await promptHash(messages, tools, "gpt-4o")).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it("PROJ-010: any change to model, message text or tools changes the hash", async () => {
    const base = await promptHash(messages, tools, "gpt-4o");
    expect(await promptHash(messages, tools, "gpt-4o-mini")).not.toBe(base);
    expect(await promptHash([...messages.slice(0, 3), { role: "tool", tool_call_id: "c1", content: "ok " }], tools, "gpt-4o")).not.toBe(base);
    expect(await promptHash(messages, [], "gpt-4o")).not.toBe(base);
  });
});

describe("promptHash assembly", () => {
  it("PROJ-010: the per-message assembly hashes exactly the canonical JSON of the whole prompt", async () => {
    const messages = [
      { role: "system", content: "s" },
      { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "n", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c", content: "r" },
    ] as const;
    const tools = [{ type: "function", function: { name: "n", parameters: { type: "object", b: 1, a: 2 } } }];
    const expected = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonicalJson({ tools, model: "m", messages }))));
    const hex = [...expected].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(await promptHash(messages as never, tools, "m")).toBe(hex);
    // A second call (served from the cache) gives the same hash.
    expect(await promptHash(messages as never, tools, "m")).toBe(hex);
  });
});
