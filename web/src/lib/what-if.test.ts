import { describe, expect, it } from "vitest";
import { emptyDraft, settingsLabel, variantBodies } from "./what-if";

describe("what-if form", () => {
  it("blank fields and an unchanged system prompt keep the recorded call's", () => {
    expect(variantBodies([emptyDraft("S")], "S")).toEqual({ ok: true, variants: [{}] });
    expect(variantBodies([{ model: " m2 ", temperature: "0.5", thinking_level: "high", max_tokens: "64", system_prompt: "T" }], "S")).toEqual({
      ok: true,
      variants: [{ model: "m2", temperature: 0.5, thinking_level: "high", max_tokens: 64, system_prompt: "T" }],
    });
  });

  it("refuses what the API would, naming the variant and the field", () => {
    expect(variantBodies([], "")).toEqual({ ok: false, error: "Add a variant first" });
    expect(
      variantBodies(
        Array.from({ length: 9 }, () => emptyDraft("")),
        "",
      ),
    ).toEqual({ ok: false, error: "At most 8 variants at once" });
    expect(variantBodies([emptyDraft(""), { ...emptyDraft(""), temperature: "3" }], "")).toEqual({
      ok: false,
      error: "Variant 2: temperature must be a number from 0 to 2",
    });
    expect(variantBodies([{ ...emptyDraft(""), max_tokens: "1.5" }], "")).toMatchObject({ ok: false });
  });

  it("labels what a variant changed", () => {
    expect(settingsLabel({})).toBe("as recorded");
    expect(settingsLabel({ model: "m", temperature: 0, system_prompt: "x" })).toBe("m · temperature 0 · system prompt changed");
  });
});
