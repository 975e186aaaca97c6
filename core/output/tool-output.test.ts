import { describe, expect, it } from "vitest";
import { Redactor } from "./redaction";
import { appendTrailer, capUtf8, INTERRUPTED_RESULT, interruptedResult, remainingAfter, TOOL_OUTPUT_MAX_BYTES, toolOutput, WRAP_UP_LINE } from "./tool-output";

const lines = (text: string) => text.split("\n");
const bytes = (text: string) => new TextEncoder().encode(text).length;

describe("toolOutput", () => {
  it("GEN-015: the trailer is the last line and counts down", () => {
    const outs = [12, 11, 10].map((remaining) => toolOutput({ text: "ok", redactor: Redactor.none, remaining }));
    expect(outs.map((o) => lines(o).at(-1))).toEqual(["remaining_tool_calls: 12", "remaining_tool_calls: 11", "remaining_tool_calls: 10"]);
    expect(outs[0]).toBe("ok\nremaining_tool_calls: 12");
  });

  it("GEN-016: the wrap-up line sits directly above the trailer at 8 or fewer, not at 9", () => {
    expect(toolOutput({ text: "ok", redactor: Redactor.none, remaining: 9 })).not.toContain(WRAP_UP_LINE);
    for (const remaining of [8, 1, 0]) {
      const out = lines(toolOutput({ text: "ok", redactor: Redactor.none, remaining }));
      expect(out.slice(-2)).toEqual(["write durable findings and finish with text; a batch costs one call each", `remaining_tool_calls: ${remaining}`]);
    }
  });

  it("OP-GEN-4: N never goes below 0", () => {
    expect(lines(toolOutput({ text: "x", redactor: Redactor.none, remaining: -3 })).at(-1)).toBe("remaining_tool_calls: 0");
    expect(appendTrailer("", Number.NaN)).toBe(`${WRAP_UP_LINE}\nremaining_tool_calls: 0`);
    expect(remainingAfter(50, 1)).toBe(49);
    expect(remainingAfter(2, 5)).toBe(0);
  });

  it("OP-ERR-5: redacts secret values before storing", () => {
    const redactor = new Redactor([{ name: "KEY", value: "sk-abcdef" }]);
    expect(toolOutput({ text: "key=sk-abcdef", redactor, remaining: 20 })).toBe("key=[REDACTED:KEY]\nremaining_tool_calls: 20");
  });

  it("OP-GEN-3: caps the body at 64 KiB with a marker, and the trailer survives the cap", () => {
    const text = "a".repeat(100_000);
    const out = toolOutput({ text, redactor: Redactor.none, remaining: 5 });
    const [body] = out.split(`\n${WRAP_UP_LINE}`);
    expect(bytes(body!)).toBeLessThanOrEqual(TOOL_OUTPUT_MAX_BYTES);
    const cut = Number(/\[output truncated: (\d+) of 100000 bytes cut\]/.exec(body!)?.[1]);
    expect(cut).toBeGreaterThan(100_000 - TOOL_OUTPUT_MAX_BYTES);
    expect(body!.split("\n")[0]!.length).toBe(100_000 - cut); // kept + cut = total
    expect(lines(out).at(-1)).toBe("remaining_tool_calls: 5");
  });

  it("cuts on a character boundary (no broken multi-byte characters)", () => {
    const text = "é😀".repeat(30_000); // 6 bytes per pair
    const { text: capped, cutBytes } = capUtf8(text, 1000);
    expect(capped).not.toContain("\uFFFD");
    const kept = capped.split("\n")[0]!;
    expect(text.startsWith(kept)).toBe(true);
    expect(bytes(kept) + cutBytes).toBe(bytes(text));
    expect(bytes(capped)).toBeLessThanOrEqual(1000);
  });

  it("redacts before capping, so a secret across the cut leaves no prefix", () => {
    const secret = "SECRET-0123456789";
    const redactor = new Redactor([{ name: "S", value: secret }]);
    // The secret straddles the byte where the cap cuts (cap minus the marker reserve).
    const text = "a".repeat(1000 - 96 - 5) + secret + "b".repeat(500);
    const out = toolOutput({ text, redactor, remaining: 20, maxBytes: 1000 });
    expect(out).not.toContain("SECRE");
    expect(out).toContain("[output truncated:");
  });

  it("short text passes unchanged and an empty body gives only the trailer lines", () => {
    expect(capUtf8("hello", 10)).toEqual({ text: "hello", cutBytes: 0 });
    expect(toolOutput({ text: "", redactor: Redactor.none, remaining: 30 })).toBe("remaining_tool_calls: 30");
    expect(toolOutput({ text: "line\n", redactor: Redactor.none, remaining: 30 })).toBe("line\nremaining_tool_calls: 30");
  });

  it("interruption results carry no trailer (they do not count toward the budget)", () => {
    expect(interruptedResult()).toBe("ERROR: execution interrupted");
    expect(INTERRUPTED_RESULT).not.toContain("remaining_tool_calls");
  });
});
