import { describe, expect, it, vi } from "vitest";
import { DEFAULT_HUB_LIMITS, type HubLimits, hubLimits, SseHub } from "./sse-hub";

interface Row {
  seq: number;
  text: string;
}

/** A test stream: rows and a free-form status. */
interface Events {
  message: Row;
  status: unknown;
}

interface Frame {
  event: string;
  id?: number;
  data: any;
}

const STREAM = "run-1";
const seqs = (frames: Frame[]) => frames.filter((f) => f.event === "message").map((f) => f.id);
const hasStatus = (frames: Frame[]) => frames.some((f) => f.event === "status");
const rowsThrough = (n: number, text = "x") => Array.from({ length: n }, (_, seq) => ({ seq, text }));

/** A hub over an in-memory transcript, recording every replay read. */
function hubOver(transcript: Row[], limits: Partial<HubLimits> = {}) {
  const reads: Array<{ after: number; limit: number }> = [];
  const hub = new SseHub<Events>(
    async (_id, after, limit) => {
      reads.push({ after, limit });
      await new Promise((r) => setTimeout(r, 1));
      return transcript.filter((r) => r.seq > after).slice(0, limit);
    },
    limits,
    async () => transcript.at(-1)?.seq ?? 0,
  );
  return { hub, reads };
}

/**
 * A client of one stream: `read(until)` collects frames until `until` holds, the stream
 * ends (`ended`) or the time runs out; it can be called again to go on reading.
 */
function client(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const frames: Frame[] = [];
  let buffer = "";
  const state = {
    frames,
    ended: false,
    async read(until: (frames: Frame[]) => boolean, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!until(frames) && Date.now() < deadline) {
        const next = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), deadline - Date.now()))]);
        if (!next) break;
        if (next.done) {
          state.ended = true;
          break;
        }
        buffer += next.value;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) !== -1) {
          const text = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: Partial<Frame> = {};
          for (const line of text.split("\n")) {
            const [field, ...rest] = line.split(": ");
            if (field === "event") frame.event = rest.join(": ");
            if (field === "id") frame.id = Number(rest.join(": "));
            if (field === "data") frame.data = JSON.parse(rest.join(": "));
          }
          if (frame.event) frames.push(frame as Frame);
        }
      }
      return state;
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
  return state;
}

/** Subscribes and reads through the replay's status event. */
const open = (hub: SseHub<Events>, after = -1) => client(hub.subscribe(STREAM, after, () => ({}))).read(hasStatus);

describe("event stream hub", () => {
  it("SSE-003 / HARDEN-3: a subscriber that stops reading is dropped at its queue's byte cap and resumes with Last-Event-ID, no gap and no duplicate", async () => {
    const transcript = rowsThrough(3);
    const { hub } = hubOver(transcript, { queueBytes: 4_096 });
    const first = await open(hub);
    expect(seqs(first.frames)).toEqual([0, 1, 2]);
    // The client stops reading: live rows pile up in its queue until the cap drops it.
    for (let seq = 3; seq < 60; seq++) {
      const row = { seq, text: "y".repeat(200) };
      transcript.push(row);
      hub.publishRow(STREAM, row);
    }
    expect(hub.subscribers(STREAM)).toBe(0);
    // Its stream ends; what was queued went with it, so no memory stays behind.
    await first.read(() => false, 2_000);
    expect(first.ended).toBe(true);

    const lastSeen = Math.max(...(seqs(first.frames) as number[]));
    const again = await open(hub, lastSeen);
    expect([...seqs(first.frames), ...seqs(again.frames)]).toEqual(transcript.map((r) => r.seq));
    await again.cancel();
  });

  it("SSE-003 / HARDEN-3: a subscriber further behind than the replay cap gets a gap event naming the rows it skipped, then the newest rows and live ones: no silent gap", async () => {
    const transcript = rowsThrough(50);
    const { hub } = hubOver(transcript, { maxReplayRows: 10, pageRows: 4 });
    const reader = await open(hub, 5);
    expect(reader.frames[0]).toEqual({ event: "gap", data: { after_seq: 5, resumes_at_seq: 40 } });
    expect(seqs(reader.frames)).toEqual(Array.from({ length: 10 }, (_, i) => 40 + i));
    const row = { seq: 50, text: "live" };
    transcript.push(row);
    hub.publishRow(STREAM, row);
    await reader.read((f) => seqs(f).includes(50));
    expect(seqs(reader.frames).at(-1)).toBe(50);
    await reader.cancel();

    // Within the cap: no gap event, every row after the Last-Event-ID.
    const near = await open(hub, 42);
    expect(near.frames.some((f) => f.event === "gap")).toBe(false);
    expect(seqs(near.frames)).toEqual(Array.from({ length: 8 }, (_, i) => 43 + i));
    await near.cancel();
    expect(() => new SseHub<Events>(async () => [], { maxReplayRows: 10 })).toThrow(/latestSeq/);
  });

  it("HARDEN-3: a row larger than a subscriber's queue cap still reaches a client that keeps up", async () => {
    const big = { seq: 0, text: "z".repeat(10_000) };
    const { hub } = hubOver([big], { queueBytes: 1_000 });
    const reader = await open(hub);
    expect(reader.frames[0]?.data.text).toHaveLength(10_000);
    hub.publishRow(STREAM, { seq: 1, text: "z".repeat(10_000) });
    await reader.read((f) => seqs(f).length === 2);
    expect(seqs(reader.frames)).toEqual([0, 1]);
    expect(hub.subscribers(STREAM)).toBe(1);
    await reader.cancel();
  });

  it("HARDEN-3: a stream nobody reads (its request failed on the way) is dropped after two keepalive periods and frees its place", async () => {
    vi.useFakeTimers();
    try {
      const { hub } = hubOver(rowsThrough(2), { maxSubscribers: 1 });
      const reading = hub.subscribe("run-read", -1, () => ({})).body!.getReader();
      hub.subscribe(STREAM, -1, () => ({}));
      await vi.advanceTimersByTimeAsync(10);
      expect(hub.subscribe(STREAM, -1, () => ({})).status).toBe(429);
      expect((await reading.read()).done).toBe(false);
      // A client that keeps reading takes its pings and stays.
      for (let i = 0; i < 3; i++) {
        await vi.advanceTimersByTimeAsync(15_000);
        expect(new TextDecoder().decode((await reading.read()).value)).toBe(": ping\n\n");
      }
      expect(hub.subscribers(STREAM)).toBe(0);
      expect(hub.subscribers("run-read")).toBe(1);
      expect(hub.subscribe(STREAM, -1, () => ({})).status).toBe(200);
      await reading.cancel();
    } finally {
      vi.useRealTimers();
    }
  });

  it("HARDEN-3: a stream nobody reads whose replay outgrows its queue is dropped after two keepalive periods too, and frees its place", async () => {
    vi.useFakeTimers();
    try {
      const { hub } = hubOver(rowsThrough(50, "r".repeat(200)), { maxSubscribers: 1, queueBytes: 1_024, pageRows: 10 });
      hub.subscribe(STREAM, -1, () => ({}));
      await vi.advanceTimersByTimeAsync(10);
      expect(hub.subscribe(STREAM, -1, () => ({})).status).toBe(429);
      await vi.advanceTimersByTimeAsync(30_000);
      expect(hub.subscribers(STREAM)).toBe(0);
      expect(hub.subscribe(STREAM, -1, () => ({})).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it("HARDEN-3: the caps come from MAX_RUN_SUBSCRIBERS / MAX_GUILD_SUBSCRIBERS and SSE_QUEUE_BYTES; unset or invalid values keep the defaults", () => {
    expect(hubLimits("3", "4096", 200)).toEqual({ maxSubscribers: 3, queueBytes: 4096 });
    expect(hubLimits(undefined, undefined, 500)).toEqual({ maxSubscribers: 500, queueBytes: DEFAULT_HUB_LIMITS.queueBytes });
    expect(hubLimits("-1", "lots", 200)).toEqual({ maxSubscribers: 200, queueBytes: DEFAULT_HUB_LIMITS.queueBytes });
    expect(hubLimits("0", "1.5", 200)).toEqual({ maxSubscribers: 200, queueBytes: DEFAULT_HUB_LIMITS.queueBytes });
  });

  it("HARDEN-3: past the subscriber cap a stream is refused with 429 and the JSON error shape; a freed place can be taken again", async () => {
    const { hub } = hubOver(rowsThrough(1), { maxSubscribers: 2 });
    const a = await open(hub);
    const b = await open(hub);
    const refused = hub.subscribe(STREAM, -1, () => ({}));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(await refused.json()).toEqual({
      error: { code: "stream.too_many_subscribers", message: expect.stringContaining("2 subscribers"), details: { limit: 2 } },
    });
    // The cap is per stream: another run is not affected.
    expect(hub.subscribe("run-2", -1, () => ({})).status).toBe(200);

    await a.cancel();
    await new Promise((r) => setTimeout(r, 10));
    expect(hub.subscribers(STREAM)).toBe(1);
    expect(hub.subscribe(STREAM, -1, () => ({})).status).toBe(200);
    await b.cancel();
  });

  it("HARDEN-3: the replay of a 1,000-row transcript is read in pages, shared by concurrent subscribers, and arrives complete and in order with live rows after it", async () => {
    const transcript = rowsThrough(1_000, "row");
    const { hub, reads } = hubOver(transcript, { pageRows: 200 });
    const responses = Array.from({ length: 20 }, () => hub.subscribe(STREAM, -1, () => ({ generating: true })));
    // Rows committed while the replay runs come once each, from the replay or held until after it.
    const live = [
      { seq: 1_000, text: "live" },
      { seq: 1_001, text: "live" },
    ];
    for (const row of live) {
      transcript.push(row);
      hub.publishRow(STREAM, row);
    }
    const results = await Promise.all(responses.map((r) => client(r).read((f) => seqs(f).length >= 1_002)));
    for (const { frames, cancel } of results) {
      expect(seqs(frames)).toEqual(transcript.map((r) => r.seq));
      // The status closes the replay: after every replayed row, before nothing committed earlier.
      expect(frames.findIndex((f) => f.event === "status")).toBeGreaterThanOrEqual(1_000);
      await cancel();
    }
    expect(Math.max(...reads.map((r) => r.limit))).toBe(200);
    // One read per page for all 20 subscribers, not one transcript read each.
    expect(reads.length).toBeLessThanOrEqual(7);
  });
});
