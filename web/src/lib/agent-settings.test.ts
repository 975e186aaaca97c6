import { describe, expect, it } from "vitest";
import { agentBody, DEFAULTS, valuesOf } from "./agent-settings";
import type { Agent } from "./api";

describe("agent settings body", () => {
  it("a new agent sends every field, numbers as numbers, no model when empty, empty provider fields as null", () => {
    const body = agentBody({ ...DEFAULTS, name: "Scout", max_steps: "12" }, null);
    expect(body).toMatchObject({ name: "Scout", max_steps: 12, model_base_url: null, model_api_key_secret: null, scripting: true, group_post: true });
    expect(body).not.toHaveProperty("model");
  });

  it("an edit sends only the changed fields, and what is not a whole number as typed, for the API to name", () => {
    const agent = {
      ...DEFAULTS,
      max_steps: 40,
      max_tool_calls: 50,
      max_input_tokens: 100000,
      keep_tool_result_generations: 1,
      max_workspace_mib: 2048,
      max_scripts: 10,
      model: "m",
      model_base_url: null,
      model_api_key_secret: null,
      thinking_level: "off",
    } as unknown as Agent;
    const values = { ...valuesOf(agent), max_steps: "many", coding: true };
    expect(agentBody(values, agent)).toEqual({ max_steps: "many", coding: true });
    expect(agentBody({ ...valuesOf(agent), max_steps: "" }, agent)).toEqual({ max_steps: null });
  });
});
