import { describe, expect, it } from "vitest";
import { Redactor } from "./redaction";
import { RedactingStream, redactedDeltas } from "./redaction-stream";

const VALUE = "canary-7f3a9c21e4b0";
const b64 = (text: string) => btoa(text);

/** The stream's output for `deltas`, as the subscriber sees it: each push, then the flush. */
function streamed(redactor: Redactor, deltas: string[]): string[] {
  const stream = new RedactingStream(() => redactor);
  return [...deltas.map((d) => stream.push(d)), stream.flush()];
}

describe("RedactingStream", () => {
  const redactor = new Redactor([{ name: "CANARY", value: VALUE }]);

  it("ERR-011: a secret split across two deltas is never emitted, not even in part", () => {
    const out = streamed(redactor, ["the key is canary-7f3a", "9c21e4b0, keep it"]);
    expect(out.join("")).toBe("the key is [REDACTED:CANARY], keep it");
    expect(out[0]).toBe("the key is ");
    for (const part of out) expect(part).not.toContain("7f3a");
  });

  it("ERR-011: every split point of a text gives the whole text's redaction, the value's encoded forms included", () => {
    const text = `a ${VALUE} b ${b64(VALUE)} c ${encodeURIComponent(VALUE)} canar d ${VALUE}`;
    const whole = redactor.redact(text);
    expect(whole).not.toContain("9c21");
    for (let i = 0; i <= text.length; i++) {
      for (const j of [i, Math.min(text.length, i + 3), Math.min(text.length, i + 11)]) {
        const out = streamed(redactor, [text.slice(0, i), text.slice(i, j), text.slice(j)]);
        expect(out.join("")).toBe(whole);
      }
    }
  });

  it("ERR-011: one character per delta still hides the value", () => {
    const text = `x${VALUE}y`;
    expect(streamed(redactor, [...text]).join("")).toBe("x[REDACTED:CANARY]y");
  });

  it("ERR-011: ordinary text is not held back: only a tail that may start a secret waits", () => {
    const stream = new RedactingStream(() => redactor);
    expect(stream.push("hello world ")).toBe("hello world ");
    expect(stream.push("can")).toBe("");
    expect(stream.push("dle")).toBe("candle");
  });

  it("ERR-011: overlapping values: the earliest match wins as in the whole text", () => {
    const r = new Redactor([
      { name: "A", value: "abcdef" },
      { name: "B", value: "defghijk" },
    ]);
    const text = "xx abcdefghijk yy";
    for (let i = 0; i <= text.length; i++) {
      expect(streamed(r, [text.slice(0, i), text.slice(i)]).join("")).toBe(r.redact(text));
    }
  });

  it("ERR-011: a value joining the set mid-stream applies from the next delta on", () => {
    let current = Redactor.none;
    const stream = new RedactingStream(() => current);
    expect(stream.push("before ")).toBe("before ");
    current = redactor;
    expect(stream.push(`${VALUE} after`) + stream.flush()).toBe("[REDACTED:CANARY] after");
  });

  it("an empty set passes every delta through at once", () => {
    expect(streamed(Redactor.none, ["a", "b"])).toEqual(["a", "b", ""]);
  });
});

describe("redactedDeltas", () => {
  it("ERR-011: content and reasoning are redacted apart, and the flush publishes what each held", () => {
    const redactor = new Redactor([{ name: "CANARY", value: VALUE }]);
    const published: Array<[string, string]> = [];
    const deltas = redactedDeltas(
      () => redactor,
      (kind, text) => published.push([kind, text]),
    );
    deltas.push("reasoning", "think canary-7f");
    deltas.push("content", "say canary-7f3a9c21e4b");
    deltas.push("reasoning", "3a9c21e4b0 done");
    deltas.push("content", "0");
    deltas.flush();
    const of = (kind: string) =>
      published
        .filter(([k]) => k === kind)
        .map(([, t]) => t)
        .join("");
    expect(of("reasoning")).toBe("think [REDACTED:CANARY] done");
    expect(of("content")).toBe("say [REDACTED:CANARY]");
    expect(published.every(([, text]) => text.length > 0)).toBe(true);
  });
});
