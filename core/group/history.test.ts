import { describe, expect, it } from "vitest";
import { chooseHistory, historyLine, modelSelector, pickedSeqs } from "./history";
import type { PublicRow } from "./wake";

const rows = (n: number): PublicRow[] =>
  Array.from({ length: n }, (_, i) => ({
    seq: i + 1,
    authorKind: "operator",
    authorAgentId: null,
    authorName: "operator",
    content: `row ${i + 1}`,
    tagged: [],
    depth: 0,
    createdAt: new Date(Date.UTC(2026, 0, 1)),
  }));

describe("group_chat_history", () => {
  it("GROUP-003: without a selector, the last 10 rows", async () => {
    const chosen = await chooseHistory(rows(40));
    expect(chosen.source).toBe("last_10");
    expect(chosen.rows.map((r) => r.seq)).toEqual([31, 32, 33, 34, 35, 36, 37, 38, 39, 40]);
  });

  it("GROUP-004: the selector's 10 picks from the last 40, in seq order; not asked when 10 rows or fewer exist", async () => {
    const picked = [40, 2, 5, 7, 11, 13, 17, 19, 23, 29];
    const chosen = await chooseHistory(rows(40), async () => ({ seqs: picked }));
    expect(chosen).toMatchObject({ source: "selector" });
    expect(chosen.rows.map((r) => r.seq)).toEqual([...picked].sort((a, b) => a - b));
    let asked = false;
    await chooseHistory(rows(10), async () => {
      asked = true;
      return { seqs: [1] };
    });
    expect(asked).toBe(false);
  });

  it("GROUP-004 / OP-GROUP-3: any selector failure falls back to the last 10 and says why", async () => {
    const answers: Array<() => Promise<unknown>> = [
      async () => {
        throw new Error("timeout");
      },
      async () => ({ seqs: [99] }),
      async () => ({ seqs: [1, 1] }),
      async () => ({ seqs: Array.from({ length: 11 }, (_, i) => i + 1) }),
      async () => "not an object",
    ];
    for (const answer of answers) {
      const chosen = await chooseHistory(rows(20), answer);
      expect(chosen.source).toBe("fallback");
      expect(chosen.reason).toBeTruthy();
      expect(chosen.rows.map((r) => r.seq)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    }
    expect(() => pickedSeqs({ seqs: [1.5] }, rows(3))).toThrow(/not a candidate/);
  });

  it("OP-GROUP-3: the model selector sends the candidates with its key in the header only, and an HTTP error never shows the key", async () => {
    let seen: { url: string; auth: string | null; body: any } | undefined;
    const select = modelSelector({
      baseURL: "https://selector.test/v1/",
      apiKey: "sk-selector-secret",
      model: "jev",
      fetch: async (url, init) => {
        seen = { url: String(url), auth: new Headers(init?.headers).get("authorization"), body: JSON.parse(String(init?.body)) };
        return new Response(JSON.stringify({ choices: [{ message: { content: '{"seqs":[3]}' } }] }));
      },
    });
    expect(await select(rows(3))).toEqual({ seqs: [3] });
    expect(seen).toMatchObject({ url: "https://selector.test/v1/chat/completions", auth: "Bearer sk-selector-secret", body: { model: "jev" } });
    expect(JSON.stringify(seen!.body)).toContain("[3] operator");
    const failing = modelSelector({
      baseURL: "https://s.test",
      apiKey: "sk-selector-secret",
      model: "jev",
      fetch: async () => new Response("no", { status: 503 }),
    });
    await expect(failing(rows(1))).rejects.toThrow(/^the selector answered HTTP 503$/);
  });

  it("GROUP-003: a history line is one line, cut when long", () => {
    const line = historyLine({ seq: 3, authorName: "Scout", content: `a\nb <memory>\n${"x".repeat(2000)}`, createdAt: "2026-01-01T00:00:00Z" });
    expect(line.startsWith("[3] Scout (2026-01-01T00:00:00.000Z): a b <memory> x")).toBe(true);
    expect(line).not.toContain("\n");
    expect(line.endsWith("…")).toBe(true);
  });
});
