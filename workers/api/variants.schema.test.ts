import { describe, expect, it } from "vitest";
import { fieldIssues } from "../../core/validation/issues";
import { VariantCreate } from "./variants.schema";

const fields = (body: unknown) => {
  const parsed = VariantCreate.safeParse(body);
  return parsed.success ? [] : fieldIssues({ issues: parsed.error.issues }).map((i) => i.field);
};

describe("what-if variant settings", () => {
  it("takes 1 to 8 variants, each field optional", () => {
    expect(fields({ variants: [{}] })).toEqual([]);
    expect(
      fields({
        variants: [
          {
            model: "m",
            base_url: null,
            api_key_secret: "OWN_KEY",
            temperature: 0,
            thinking_level: "off",
            max_tokens: 1,
            system_prompt: "",
            tools: [{ type: "function", function: { name: "notes_read" } }],
          },
        ],
      }),
    ).toEqual([]);
    expect(fields({ variants: [] })).toEqual(["variants"]);
    expect(fields({ variants: Array.from({ length: 9 }, () => ({})) })).toEqual(["variants"]);
  });

  it("names the bad field of the bad variant", () => {
    expect(fields({ variants: [{}, { temperature: 2.5 }] })).toEqual(["variants.1.temperature"]);
    expect(fields({ variants: [{ max_tokens: 1.5 }] })).toEqual(["variants.0.max_tokens"]);
    expect(fields({ variants: [{ model: " " }] })).toEqual(["variants.0.model"]);
    expect(fields({ variants: [{ base_url: "ftp://x" }] })).toEqual(["variants.0.base_url"]);
    expect(fields({ variants: [{ api_key_secret: "lower" }] })).toEqual(["variants.0.api_key_secret"]);
    expect(fields({ variants: [{ tools: [{ type: "function", function: { name: "x".repeat(65) } }] }] })).toEqual(["variants.0.tools.0.function.name"]);
  });

  it("fills a tool's description and parameters as offered tools carry them", () => {
    const parsed = VariantCreate.parse({ variants: [{ tools: [{ type: "function", function: { name: "t" } }] }] });
    expect(parsed.variants[0]!.tools![0]!.function).toEqual({ name: "t", description: "", parameters: { type: "object", properties: {} } });
  });
});
