import { describe, expect, it } from "vitest";
import { AnswerTooLarge } from "../http/read-within";
import { type ChatChunk, chatStream, ProviderAnswerError, serverSentEvents } from "./chat-stream";

/** A body that arrives in exactly these pieces, so a line or a character can be cut anywhere. */
function pieces(...parts: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(typeof part === "string" ? encoder.encode(part) : part);
      controller.close();
    },
  });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A provider that answers one request with `answer`, keeping what it was sent. */
function provider(answer: () => Response | Promise<Response>) {
  const seen: { url: string; init: RequestInit }[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    seen.push({ url, init });
    return answer();
  };
  return { seen, fetch };
}

const stream = (body: string, init: ResponseInit = {}) => new Response(body, { headers: { "content-type": "text/event-stream" }, ...init });
const request = (fetch: (url: string, init: RequestInit) => Promise<Response>) => ({
  baseURL: "https://provider.example/v1/",
  apiKey: "sk-test",
  body: { model: "m", stream: true },
  signal: new AbortController().signal,
  fetch,
  cap: { peer: "the model provider", maxBytes: 4096 },
});

async function failure(promise: Promise<unknown>): Promise<ProviderAnswerError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderAnswerError);
  return error as ProviderAnswerError;
}

describe("server-sent events", () => {
  it("GEN-001: events split anywhere (inside a line, between CR and LF, inside a character) read as sent", async () => {
    const euro = new TextEncoder().encode("€");
    const events = await collect(
      serverSentEvents(
        pieces(
          ": a comment\r\n",
          "data: one\r",
          "\ndata:two\r\n\r\nevent: named\ndata: ",
          euro.slice(0, 2),
          euro.slice(2),
          "\n\n",
          "data: three\r\r",
          "data: cut off",
        ),
      ),
    );
    expect(events).toEqual([
      { event: null, data: "one\ntwo" },
      { event: "named", data: "€" },
      { event: null, data: "three" },
    ]);
  });

  it("GEN-001: a blank line without data makes no event, and a field without a colon is a name with an empty value", async () => {
    expect(await collect(serverSentEvents(pieces("event: ping\n\n", "data\n\n", "id: 3\nretry: 10\n\n")))).toEqual([{ event: null, data: "" }]);
  });
});

describe("a streamed chat completion", () => {
  it("EXACT-006: one POST to the base URL's chat/completions with the key, chunks until [DONE], nothing after it", async () => {
    const { seen, fetch } = provider(() =>
      stream(
        'data: {"model":"m1","choices":[{"delta":{"content":"Hel"}}]}\n\ndata: {"choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\ndata: {"choices":[]}\n\n',
      ),
    );
    const chunks: ChatChunk[] = await collect(chatStream(request(fetch)));
    expect(chunks.map((c) => c.choices?.[0]?.delta.content)).toEqual(["Hel", "lo"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe("https://provider.example/v1/chat/completions");
    expect(new Headers(seen[0]!.init.headers).get("authorization")).toBe("Bearer sk-test");
    expect(JSON.parse(String(seen[0]!.init.body))).toEqual({ model: "m", stream: true });
  });

  it("ERR-002: an error answer keeps its status, the provider's code and message, its headers; a body that is not JSON is the message", async () => {
    const json = await failure(
      collect(
        chatStream(
          request(
            provider(() => Response.json({ error: { message: "Bad model", code: "model_not_found" } }, { status: 404, headers: { "retry-after": "3" } })).fetch,
          ),
        ),
      ),
    );
    expect([json.status, json.code, json.message, json.headers?.get("retry-after")]).toEqual([404, "model_not_found", "404 Bad model", "3"]);
    const text = await failure(collect(chatStream(request(provider(() => new Response("upstream down", { status: 502 })).fetch))));
    expect([text.status, text.message]).toEqual([502, "502 upstream down"]);
    const empty = await failure(collect(chatStream(request(provider(() => new Response(null, { status: 500 })).fetch))));
    expect(empty.message).toBe("500 status code (no body)");
  });

  it("ERR-002: an error the stream itself carries ends it, after the chunks before it", async () => {
    const chunks: ChatChunk[] = [];
    const error = await failure(
      (async () => {
        const body = 'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"error":{"message":"overloaded","code":"busy"}}\n\n';
        for await (const chunk of chatStream(request(provider(() => stream(body)).fetch))) chunks.push(chunk);
      })(),
    );
    expect(chunks).toHaveLength(1);
    expect([error.status, error.code, error.message]).toEqual([null, "busy", "overloaded"]);
  });

  it("ERR-002: no answer at all is a connection error with its cause; the fetch's own refusals pass through as they are", async () => {
    const refused = await failure(
      collect(
        chatStream(
          request(async () => {
            throw new TypeError("fetch failed");
          }),
        ),
      ),
    );
    expect([refused.status, refused.message, (refused.cause as Error).message]).toEqual([null, "Connection error.", "fetch failed"]);
    const own = Object.assign(new Error("redirect refused"), { name: "ProviderError" });
    await expect(
      collect(
        chatStream(
          request(async () => {
            throw own;
          }),
        ),
      ),
    ).rejects.toBe(own);
  });

  it("EXACT-006: a call past its time limit fails as timed out; one the caller aborts throws the caller's abort", async () => {
    const hanging = (_url: string, init: RequestInit) =>
      new Promise<Response>((_, reject) => init.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const timedOut = await failure(collect(chatStream({ ...request(hanging), timeoutMs: 20 })));
    expect(timedOut.message).toBe("Request timed out.");
    const controller = new AbortController();
    const pending = collect(chatStream({ ...request(hanging), signal: controller.signal }));
    controller.abort(new Error("stopped by the operator"));
    await expect(pending).rejects.toThrow("stopped by the operator");
  });

  it("HARDEN-3: an answer past the cap stops there, streamed or an error's body", async () => {
    const chunk = `data: {"choices":[{"delta":{"content":"${"x".repeat(1000)}"}}]}\n\n`;
    await expect(collect(chatStream(request(provider(() => stream(chunk.repeat(10))).fetch)))).rejects.toBeInstanceOf(AnswerTooLarge);
    const error = await failure(collect(chatStream(request(provider(() => new Response("e".repeat(10_000), { status: 500 })).fetch))));
    expect(error.message).toMatch(/^500 .*4 KiB/);
  });

  it("HARDEN-3: a reader that stops early cancels the answer's body", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('data: {"choices":[{"delta":{"content":"more"}}]}\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const chunk of chatStream(request(provider(() => new Response(body)).fetch))) {
      expect(chunk.choices?.[0]?.delta.content).toBe("more");
      break;
    }
    expect(cancelled).toBe(true);
  });
});
