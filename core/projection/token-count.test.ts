import { beforeAll, describe, expect, it, vi } from "vitest";
import { packageRanks } from "./package-ranks";
import { countRowTokens, countText, countToolSchemas, IMAGE_TOKENS, MESSAGE_OVERHEAD, prepareTokenCounter } from "./token-count";

beforeAll(() => prepareTokenCounter(packageRanks));

describe("token counting (GEN-019)", () => {
  it("GEN-019: counts text with o200k_base", () => {
    expect(countText("hello world")).toBe(2);
    expect(countText("")).toBe(0);
  });

  it("GEN-019: a long text counted again (kept per isolate) gives its own count, never another text's", () => {
    const schema = JSON.stringify({ type: "object", properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field_${i}`, { type: "string" }])) });
    const first = countText(schema);
    expect(countText(schema)).toBe(first);
    const longer = `${schema} and a few more words`;
    expect(countText(longer)).toBe(first + countText(" and a few more words"));
    expect(countText(schema)).toBe(first);
  });

  it("GEN-019: special-token text in tool output is counted, not rejected", () => {
    expect(countText("before <|endoftext|> after")).toBeGreaterThan(3);
  });

  it("GEN-019: a row costs its text plus the per-message overhead", () => {
    const content = "Summarise the quarterly report, please.";
    expect(countRowTokens({ role: "user", content }, {})).toBe(MESSAGE_OVERHEAD + countText(content));
    expect(countRowTokens({ role: "assistant", content: null }, {})).toBe(MESSAGE_OVERHEAD);
  });

  it("GEN-019: an assistant row counts its text and each tool call's name and arguments", () => {
    const calls = [
      { id: "c1", type: "function" as const, function: { name: "file_read", arguments: '{"path":"src/a.ts"}' } },
      { id: "c2", type: "function" as const, function: { name: "shell", arguments: '{"command":"ls -la"}' } },
    ];
    const expected = MESSAGE_OVERHEAD + countText("Reading.") + calls.reduce((n, c) => n + countText(c.function.name) + countText(c.function.arguments), 0);
    expect(countRowTokens({ role: "assistant", content: "Reading.", tool_calls: calls }, {})).toBe(expected);
  });

  it("ATT-009/GEN-022: each image adds 1600 tokens and its URL is not encoded", () => {
    const url = "https://store.example/signed/abc?X-Amz-Signature=deadbeef";
    const attachments = [
      { id: "att-1", filename: url, mime: "image/png", kind: "image" },
      { id: "att-2", filename: "chart.jpg", mime: "image/jpeg", kind: "image" },
      { id: "att-3", filename: "notes.pdf", mime: "application/pdf", kind: "file" },
    ];
    const seen: string[] = [];
    const counter = vi.fn((t: string) => {
      seen.push(t);
      return countText(t);
    });
    const tokens = countRowTokens({ role: "user", content: "What is in these?" }, { attachments }, counter);
    expect(tokens).toBe(MESSAGE_OVERHEAD + countText("What is in these?") + 2 * IMAGE_TOKENS);
    expect(seen).toEqual(["What is in these?"]);
    // An empty caption with an image is allowed (ATT-003) and costs only overhead plus the image.
    expect(countRowTokens({ role: "user", content: "" }, { attachments: attachments.slice(0, 1) })).toBe(MESSAGE_OVERHEAD + IMAGE_TOKENS);
  });

  it("GEN-019: tool schemas are counted as their JSON serialisation", () => {
    const tools = [{ type: "function", function: { name: "note_read", description: "Read a note", parameters: { type: "object" } } }];
    expect(countToolSchemas(tools)).toBe(countText(JSON.stringify(tools)));
    expect(countToolSchemas([])).toBe(0);
  });
});
