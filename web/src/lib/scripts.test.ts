import { describe, expect, it } from "vitest";
import {
  authorLabel,
  createdScriptName,
  linkedScript,
  linkedSeq,
  parametersText,
  parseParameters,
  runStepHref,
  scriptsChangedFor,
  scriptsHref,
} from "./scripts";

describe("Scripts view helpers", () => {
  it("UI-023: Parameters: empty is none, a JSON object is sent, anything else is named inline", () => {
    expect(parseParameters("  ")).toEqual({ ok: true, value: null });
    expect(parseParameters("null")).toEqual({ ok: true, value: null });
    expect(parseParameters('{"type":"object","properties":{"n":{"type":"integer"}}}')).toEqual({
      ok: true,
      value: { type: "object", properties: { n: { type: "integer" } } },
    });
    const broken = parseParameters('{"type": "object",');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.message).toMatch(/^Parameters are not valid JSON: /);
    for (const text of ["[]", "3", '"object"', "true"]) {
      expect(parseParameters(text)).toEqual({ ok: false, message: "Parameters must be a JSON object (a JSON Schema of type object)" });
    }
    expect(parametersText({ type: "object" })).toBe('{\n  "type": "object"\n}');
    expect(parametersText(null)).toBe("");
  });

  it("UI-018: a run author links to the run at its step; a person is named by the token", () => {
    expect(authorLabel({ kind: "run", run_id: "0123456789abcdef", seq: 7 })).toEqual({ text: "run 01234567, step 7", href: "/runs/0123456789abcdef#seq-7" });
    expect(authorLabel({ kind: "run", run_id: "0123456789abcdef", seq: null })).toEqual({ text: "run 01234567", href: "/runs/0123456789abcdef" });
    expect(authorLabel({ kind: "person", token_id: "t1", name: "ops laptop" })).toEqual({ text: "ops laptop", href: null });
    expect(runStepHref("r", 0)).toBe("/runs/r#seq-0");
    expect(linkedSeq("#seq-12")).toBe(12);
    expect(linkedSeq("#seq-x")).toBeNull();
    expect(linkedSeq("")).toBeNull();
  });

  it("UI-028: a script_create call names its script; the chip's address opens that card", () => {
    expect(createdScriptName("script_create", '{"name":"fetch_prices","description":"d","source":"print(1)"}')).toBe("fetch_prices");
    expect(createdScriptName("script_run", '{"name":"fetch_prices"}')).toBeNull();
    expect(createdScriptName("script_create", '{"name":')).toBeNull();
    expect(createdScriptName("script_create", '{"name":""}')).toBeNull();
    expect(createdScriptName("script_create", "[]")).toBeNull();
    expect(scriptsHref("a1", "fetch_prices")).toBe("/agents/a1/scripts#script-fetch_prices");
    expect(scriptsHref("a1")).toBe("/agents/a1/scripts");
    expect(linkedScript("#script-fetch_prices")).toBe("fetch_prices");
    expect(linkedScript("#script-")).toBeNull();
    expect(linkedScript("#routine-x")).toBeNull();
  });

  it("SCRIPT-040: the Scripts view hears its own agent's agent.scripts.changed events on the guild stream, no other", () => {
    const event = (data: unknown, name = "agent.scripts.changed") => ({ event: name, data: JSON.stringify(data) });
    expect(scriptsChangedFor(event({ agent_id: "a1", action: "create", name: "x" }), "a1")).toBe(true);
    expect(scriptsChangedFor(event({ agent_id: "a1", action: "clear" }), "a1")).toBe(true);
    expect(scriptsChangedFor(event({ agent_id: "a2", action: "delete", name: "x" }), "a1")).toBe(false);
    expect(scriptsChangedFor(event({ agent_id: "a1" }, "message"), "a1")).toBe(false);
    expect(scriptsChangedFor({ event: "agent.scripts.changed", data: "{" }, "a1")).toBe(false);
  });
});
