import { describe, expect, it } from "vitest";
import { continuedTo } from "./run-chain";

describe("following a run chain", () => {
  it("CHAIN-011 / OP-UI-2: a run.continued event names the run the view moves to", () => {
    const next = "6f1c2c2e-5b7a-4d55-9a43-0c8d7e1f2a3b";
    expect(continuedTo(JSON.stringify({ run_id: next, previous_run_id: "x" }))).toBe(next);
  });

  it("CHAIN-011: a malformed event moves nothing", () => {
    expect(continuedTo("not json")).toBeNull();
    expect(continuedTo(JSON.stringify({ run_id: "../../agents" }))).toBeNull();
    expect(continuedTo(JSON.stringify({}))).toBeNull();
  });
});
