import { describe, expect, it } from "vitest";
import { ApiError } from "./api-client";
import type { GroupMessage, Row } from "./api-types";
import { applyChatEvent, type ChatState, emptyChat, reading, withMessages } from "./group-chat";
import { applyEvent, emptyLiveRun, type LiveRun, withRows } from "./live-run";
import { openEventStream, openRunStream, type RunStreamOptions } from "./run-stream";
import { lastSeq } from "./sse";
import { RETRYING_MESSAGE, retryingNotice } from "./unavailable";

const row = (seq: number): Row => ({
  seq,
  generation: seq === 0 ? null : 1,
  role: seq === 0 ? "system" : "user",
  payload: seq === 0 ? { role: "system", content: "" } : { role: "user", content: "" },
  metadata: {},
  cost_usd: null,
  created_at: "2026-01-01T00:00:00Z",
});
const frame = (r: Row) => `event: message\nid: ${r.seq}\ndata: ${JSON.stringify(r)}\n\n`;

/** A Response whose SSE body sends these chunks, then ends (a dropped connection) or stays open. */
function sse(chunks: string[], end = true): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
      if (end) controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

const waitFor = async (check: () => boolean, ms = 2_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
};

/**
 * Run r1's stream answered by `responses` in turn, held in a LiveRun from row 0; `calls`
 * records each request and when it left. `more` adds options, given the held state.
 */
function followRun(responses: Array<() => Response>, more: (held: { state: LiveRun }) => Partial<RunStreamOptions> = () => ({})) {
  const held = { state: withRows(emptyLiveRun(), [row(0)]) };
  const calls: Array<{ url: string; headers: Record<string, string>; at: number }> = [];
  const stream = openRunStream({
    runId: "r1",
    token: "gld_x",
    lastSeq: () => lastSeq(held.state.rows),
    onEvent: (e) => {
      held.state = applyEvent(held.state, e);
    },
    retryDelayMs: () => 1,
    fetch: async (url, init) => {
      calls.push({ url: String(url), headers: init?.headers as Record<string, string>, at: Date.now() });
      return responses[calls.length - 1]!();
    },
    ...more(held),
  });
  return { held, calls, stream };
}

describe("openRunStream", () => {
  it("UI-007: after a dropped connection it reloads history, reconnects with Last-Event-ID, and no row shows twice", async () => {
    let reloads = 0;
    const { held, calls, stream } = followRun(
      [
        () => sse([frame(row(1)), frame(row(2)).slice(0, 20)]), // dropped mid-frame
        () => sse([frame(row(2)), frame(row(3)), 'event: status\ndata: {"generating":false}\n\n'], false),
      ],
      (held) => ({
        beforeReconnect: async () => {
          reloads++;
          held.state = withRows(held.state, [row(2)]);
        },
      }),
    );
    await waitFor(() => held.state.rows.length === 4 && held.state.status === null && calls.length === 2 && !held.state.generating);
    stream.close();
    expect(held.state.rows.map((r) => r.seq)).toEqual([0, 1, 2, 3]);
    expect(reloads).toBe(1);
    expect(calls[0]!.url).toBe("/api/runs/r1/events?after_seq=0");
    expect(calls[0]!.headers.authorization).toBe("Bearer gld_x");
    expect(calls[0]!.headers["last-event-id"]).toBeUndefined();
    expect(calls[1]!.url).toBe("/api/runs/r1/events");
    expect(calls[1]!.headers["last-event-id"]).toBe("2");
  });

  it("stops for good on 401 and 404 and reports it", async () => {
    let fatal: number | null = null;
    let calls = 0;
    openRunStream({
      runId: "r1",
      token: "bad",
      lastSeq: () => -1,
      onEvent: () => {},
      retryDelayMs: () => 1,
      onFatal: (status) => {
        fatal = status;
      },
      fetch: async () => {
        calls++;
        return new Response('{"error":{}}', { status: 401 });
      },
    });
    await waitFor(() => fatal !== null);
    await new Promise((r) => setTimeout(r, 30));
    expect(fatal).toBe(401);
    expect(calls).toBe(1);
  });

  it("treats a silent stream as dropped and reconnects; close() stops everything", async () => {
    let calls = 0;
    const states: string[] = [];
    const stream = openRunStream({
      runId: "r1",
      token: "t",
      lastSeq: () => 5,
      onEvent: () => {},
      retryDelayMs: () => 1,
      idleTimeoutMs: 20,
      onConnection: (s) => states.push(s),
      fetch: async (_url, init) => {
        calls++;
        const signal = init?.signal;
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            signal?.addEventListener("abort", () => controller.error(new DOMException("aborted", "AbortError")));
          },
        });
        return new Response(body);
      },
    });
    await waitFor(() => calls >= 2);
    stream.close();
    await waitFor(() => states.at(-1) === "closed");
    const after = calls;
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(after);
    expect(states).toContain("reconnecting");
  });

  it("the guild chat's stream: its own path, messages resumed by seq after a drop with none twice, deliveries applied", async () => {
    const message = (seq: number): GroupMessage => ({
      seq,
      guild_id: "g1",
      author_kind: "operator",
      author_agent_id: null,
      author_name: "Operator",
      content: `m${seq}`,
      tagged: [],
      depth: 0,
      created_at: "2026-01-01T00:00:00Z",
    });
    const chatFrame = (m: GroupMessage) => `event: message\nid: ${m.seq}\ndata: ${JSON.stringify(m)}\n\n`;
    const started = 'event: delivery\ndata: {"agent_id":"a1","agent_name":"Scout","run_id":"r9","through_seq":4,"state":"started"}\n\n';
    let state: ChatState = withMessages(emptyChat(), [message(3)]);
    const urls: string[] = [];
    const ids: Array<string | undefined> = [];
    const responses = [
      () => sse([chatFrame(message(4)), 'event: status\ndata: {"guild_id":"g1"}\n\n', started]),
      () => sse([chatFrame(message(4)), chatFrame(message(5))], false),
    ];
    const stream = openEventStream({
      path: "/api/guilds/g1/events",
      token: "gld_x",
      lastSeq: () => lastSeq(state.messages),
      onEvent: (e) => {
        state = applyChatEvent(state, e);
      },
      retryDelayMs: () => 1,
      fetch: async (url, init) => {
        urls.push(String(url));
        ids.push((init?.headers as Record<string, string> | undefined)?.["last-event-id"]);
        return responses[urls.length - 1]!();
      },
    });
    await waitFor(() => state.messages.length === 3);
    stream.close();
    expect(state.messages.map((m) => m.seq)).toEqual([3, 4, 5]);
    expect(reading(state).map((d) => d.agent_name)).toEqual(["Scout"]);
    expect(urls).toEqual(["/api/guilds/g1/events?after_seq=3", "/api/guilds/g1/events"]);
    expect(ids).toEqual([undefined, "4"]);
  });

  it("HARDEN-2: while the database does not answer (the reload or the stream answers 503) it says so, waits each Retry-After, and clears once open", async () => {
    const shown: Array<string | null> = [];
    let reloads = 0;
    const unavailable = () =>
      new Response(JSON.stringify({ error: { code: "database.unavailable", message: "not answering", details: {} } }), {
        status: 503,
        headers: { "content-type": "application/json", "retry-after": "1" },
      });
    const { held, calls, stream } = followRun([() => sse([frame(row(1))]), unavailable, () => sse([frame(row(2))], false)], () => ({
      beforeReconnect: async () => {
        if (++reloads === 1) throw new ApiError(503, "database.unavailable", "not answering", { retry_after_s: 1 });
      },
      notice: retryingNotice((message) => shown.push(message)),
    }));
    await waitFor(() => held.state.rows.length === 3, 5_000);
    stream.close();
    expect(shown).toEqual([RETRYING_MESSAGE, RETRYING_MESSAGE, null]);
    expect(reloads).toBe(3);
    // Each wait is the answer's Retry-After (1 s), not the back-off of 1 ms.
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(900);
    expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(900);
  });
});
