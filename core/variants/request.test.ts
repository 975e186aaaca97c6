import { describe, expect, it } from "vitest";
import type { ChatPayload } from "../projection/types";
import type { OfferedTool, RunSnapshot } from "../runs/snapshot";
import { batchIds, variantCall, withSystemPrompt } from "./request";

const model: RunSnapshot["model"] = {
  model: "recorded-model",
  base_url: "https://models.example.com/v1",
  api_key_secret: "OWN_KEY",
  thinking_level: "low",
  max_steps: 10,
  max_tool_calls: 50,
  max_input_tokens: 100_000,
  keep_tool_result_generations: 2,
  projection_policy_version: 1,
};
const messages: ChatPayload[] = [
  { role: "system", content: "You are careful." },
  { role: "user", content: "hello" },
];
const tool: OfferedTool = { type: "function", function: { name: "notes_read", description: "Read", parameters: { type: "object", properties: {} } } };

describe("what-if variant settings", () => {
  it("a variant without changes is the recorded call", () => {
    expect(variantCall({ model, messages, tools: [tool] }, {})).toEqual({
      model: "recorded-model",
      base_url: "https://models.example.com/v1",
      api_key_secret: "OWN_KEY",
      thinking_level: "low",
      temperature: null,
      max_tokens: null,
      messages,
      tools: [tool],
    });
  });

  it("each field given replaces the recorded one", () => {
    const call = variantCall(
      { model, messages, tools: [tool] },
      { model: "other", temperature: 0.2, thinking_level: "off", max_tokens: 64, system_prompt: "Be brief.", tools: [] },
    );
    expect(call).toMatchObject({ model: "other", temperature: 0.2, thinking_level: "off", max_tokens: 64, tools: [] });
    expect(call.messages).toEqual([{ role: "system", content: "Be brief." }, messages[1]]);
    // The recorded prompt itself is untouched.
    expect(messages[0]!.content).toBe("You are careful.");
  });

  it("another base_url drops the agent's own key unless the variant names one", () => {
    expect(variantCall({ model, messages, tools: [] }, { base_url: null })).toMatchObject({ base_url: null, api_key_secret: null });
    expect(variantCall({ model, messages, tools: [] }, { base_url: "https://elsewhere.example.com/v1", api_key_secret: "OTHER" })).toMatchObject({
      api_key_secret: "OTHER",
    });
    expect(variantCall({ model, messages, tools: [] }, { base_url: model.base_url })).toMatchObject({ api_key_secret: "OWN_KEY" });
  });

  it("a system prompt is put first when the prompt has none", () => {
    expect(withSystemPrompt([{ role: "user", content: "q" }], "S")).toEqual([
      { role: "system", content: "S" },
      { role: "user", content: "q" },
    ]);
  });

  it("a batch's ids are version 7 uuids that sort in the order asked", () => {
    const ids = batchIds(8, Date.UTC(2026, 11, 3));
    expect(new Set(ids).size).toBe(8);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]!.slice(0, 13)).toBe(
      `${Date.UTC(2026, 11, 3).toString(16).padStart(12, "0").slice(0, 8)}-${Date.UTC(2026, 11, 3).toString(16).padStart(12, "0").slice(8)}`,
    );
  });
});
