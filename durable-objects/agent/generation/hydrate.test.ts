import { describe, expect, it } from "vitest";
import type { AttachmentRef, ChatPayload, StoredRow } from "../../../core/projection/types";
import { type ImageStore, imageHydrator } from "./hydrate";
import { ProviderError } from "./model-call";

const image = (id: string): AttachmentRef => ({ id, filename: `${id}.png`, mime: "image/png", kind: "image" });

function userRow(seq: number, content: string, images: AttachmentRef[]): StoredRow {
  return { seq, generation: seq, role: "user", payload: { role: "user", content }, metadata: { attachments: images }, tokenCount: 10 };
}

/** An image store of `size`-byte images, counting reads (a body read or a discarded one). */
function countingStore(sizes: Record<string, number>) {
  const reads: string[] = [];
  const store: ImageStore = async (id) => {
    reads.push(id);
    const size = sizes[id];
    if (size === undefined) return null;
    return { size, bytes: async () => new Uint8Array(size).fill(7).buffer, discard: () => {} };
  };
  return { store, reads };
}

const kinds = (message: unknown) => (message as { content: Array<{ type: string; text?: string }> }).content.map((p) => p.text ?? p.type);

describe("image hydration", () => {
  const system: StoredRow = { seq: 0, generation: null, role: "system", payload: { role: "system", content: "sys" }, metadata: {}, tokenCount: 5 };
  const old = userRow(1, "old picture", [image("a")]);
  const recent = userRow(2, "new picture", [image("b")]);
  const rows = [system, old, recent];

  it("ATT-004 / HARDEN-3: only images of rows inside the projection are read, each once per generation", async () => {
    const { store, reads } = countingStore({ a: 100, b: 100 });
    const hydrate = imageHydrator(store);
    // A projection that left the older user row out: its image is not read.
    const projected: ChatPayload[] = [system.payload, recent.payload];
    const first = await hydrate(projected, rows);
    expect(reads).toEqual(["b"]);
    expect(first[0]).toBe(system.payload);
    expect(kinds(first[1])).toEqual(["new picture", "image_url"]);
    // The next model call of the same generation reuses the bytes.
    const second = await hydrate([...projected, { role: "assistant", content: "seen" }], rows);
    expect(reads).toEqual(["b"]);
    expect(second[1]).toEqual(first[1]);
    // With both rows projected, the other image is read once too.
    await hydrate(
      rows.map((r) => r.payload),
      rows,
    );
    await hydrate(
      rows.map((r) => r.payload),
      rows,
    );
    expect(reads).toEqual(["b", "a"]);
    // The stored payloads are never changed (ATT-002).
    expect(old.payload).toEqual({ role: "user", content: "old picture" });
  });

  it("HARDEN-3: an older image that would pass the request cap becomes a note; the latest message's images must fit or no call is made", async () => {
    const { store } = countingStore({ a: 3_000, b: 3_000 });
    const text = JSON.stringify(rows.map((r) => r.payload)).length;
    // Room for one 4 KB data URL, not two.
    const hydrate = imageHydrator(store, { maxRequestBytes: text + 6_000 });
    const sent = await hydrate(
      rows.map((r) => r.payload),
      rows,
    );
    expect(kinds(sent[2])).toEqual(["new picture", "image_url"]);
    expect(kinds(sent[1])).toEqual(["old picture", expect.stringContaining("[image a.png left out")]);

    const tooSmall = imageHydrator(store, { maxRequestBytes: text + 1_000 });
    const error = await tooSmall(
      rows.map((r) => r.payload),
      rows,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe("provider.request_too_large");
    expect((error as ProviderError).message).toContain("b.png");
  });

  it("HARDEN-3: the prompt's text alone is measured to the byte against the request cap, step after step", async () => {
    const prompt: ChatPayload[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "naïve café — 東京 🚀" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "note_list", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: 'quote " and backslash \\' },
    ];
    const bytes = (messages: ChatPayload[]) => new TextEncoder().encode(JSON.stringify(messages)).byteLength;
    const noImages: StoredRow[] = [];
    for (let step = 1; step <= prompt.length; step++) {
      // The same objects again, one more each step, as the projection hands them back.
      const messages = prompt.slice(0, step);
      expect(await imageHydrator(null, { maxRequestBytes: bytes(messages) })(messages, noImages)).toBe(messages);
      const error = await imageHydrator(null, { maxRequestBytes: bytes(messages) - 1 })(messages, noImages).catch((e: unknown) => e);
      expect((error as ProviderError).code).toBe("provider.request_too_large");
    }
  });

  it("ATT-004: a missing image becomes a note and rows without images pass through as the same objects", async () => {
    const { store } = countingStore({});
    const hydrate = imageHydrator(store);
    const sent = await hydrate(
      rows.map((r) => r.payload),
      rows,
    );
    expect(sent[0]).toBe(system.payload);
    expect(kinds(sent[2])).toEqual(["new picture", "[image b.png is no longer available]"]);
    const plain = [system.payload];
    expect(await hydrate(plain, [system])).toBe(plain);
  });

  it("ATT-004: a stubbed tool result before a user row does not hide that row's images", async () => {
    const { store, reads } = countingStore({ c: 100 });
    const call: StoredRow = {
      seq: 1,
      generation: 1,
      role: "assistant",
      payload: { role: "assistant", content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "note_read", arguments: "{}" } }] },
      metadata: {},
      tokenCount: 5,
    };
    const result: StoredRow = {
      seq: 2,
      generation: 1,
      role: "tool",
      payload: { role: "tool", tool_call_id: "t1", content: "x".repeat(5_000) },
      metadata: {},
      tokenCount: 900,
    };
    const look = userRow(3, "look", [image("c")]);
    const all = [system, call, result, look];
    // The projection replaces the old result's payload with a stub: a new object.
    const projected: ChatPayload[] = [system.payload, call.payload, { role: "tool", tool_call_id: "t1", content: "[stub]" }, look.payload];
    const sent = await imageHydrator(store)(projected, all);
    expect(reads).toEqual(["c"]);
    expect(kinds(sent[3])).toEqual(["look", "image_url"]);
  });

  it("OP-EXACT-2: a tool row's image follows the block of tool results as one user message naming the call", async () => {
    const { store, reads } = countingStore({ shot: 100 });
    const calls: StoredRow = {
      seq: 1,
      generation: 1,
      role: "assistant",
      payload: {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "s1", type: "function", function: { name: "browser_screenshot", arguments: "{}" } },
          { id: "n1", type: "function", function: { name: "note_list", arguments: "{}" } },
        ],
      },
      metadata: {},
      tokenCount: 5,
    };
    const shot: StoredRow = {
      seq: 2,
      generation: 1,
      role: "tool",
      payload: { role: "tool", tool_call_id: "s1", content: "Screenshot." },
      metadata: { tool_name: "browser_screenshot", attachments: [image("shot")] },
      tokenCount: 1610,
    };
    const notes: StoredRow = { seq: 3, generation: 1, role: "tool", payload: { role: "tool", tool_call_id: "n1", content: "[]" }, metadata: {}, tokenCount: 5 };
    const all = [system, calls, shot, notes];
    const sent = await imageHydrator(store)(
      all.map((r) => r.payload),
      all,
    );
    expect(reads).toEqual(["shot"]);
    // The tool messages stay as stored; the image comes after the last result of the turn.
    expect(sent.slice(0, 4)).toEqual(all.map((r) => r.payload));
    expect(sent).toHaveLength(5);
    expect(kinds(sent[4])).toEqual(["[image returned by browser_screenshot, call s1]", "image_url"]);
    expect((sent[4] as { role: string }).role).toBe("user");

    // A stubbed screenshot result sends no image; one past the cap becomes a note, never an error.
    const stubbed = await imageHydrator(store)([system.payload, calls.payload, { role: "tool", tool_call_id: "s1", content: "[stub]" }, notes.payload], all);
    expect(stubbed).toHaveLength(4);
    const text = JSON.stringify(all.map((r) => r.payload)).length;
    const capped = await imageHydrator(store, { maxRequestBytes: text + 50 })(
      all.map((r) => r.payload),
      all,
    );
    expect(kinds(capped[4])).toEqual(["[image returned by browser_screenshot, call s1]", expect.stringContaining("[image shot.png left out")]);
  });
});
