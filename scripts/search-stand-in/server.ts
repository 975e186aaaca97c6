/**
 * A stand-in for Tavily's search API on loopback, for `npm start` and the test stacks: the
 * Worker's TAVILY_API_URL points here with a dummy TAVILY_API_KEY, so tavily_search runs
 * end to end without the internet. Canned results; a few queries ask for the edge cases:
 * `stand-in:error` answers 500, `stand-in:echo-key` puts the request's key in a result (the
 * platform must redact it), `stand-in:many` answers 30 long results (the tool caps them).
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface SearchStandIn {
  url: string;
  /** The key the stand-in accepts (Authorization: Bearer <key>). */
  key: string;
  close(): Promise<void>;
}

/** The dummy key of the local stack: a real-looking shape, worthless anywhere else. */
export const STAND_IN_KEY = "tvly-local-stand-in-0000000000000000";

export async function startSearchStandIn(options: { port?: number; key?: string } = {}): Promise<SearchStandIn> {
  const key = options.key ?? STAND_IN_KEY;
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "POST" || req.url !== "/search") return send(404, { detail: { error: "not found" } });
    if (req.headers.authorization !== `Bearer ${key}`) return send(401, { detail: { error: "Unauthorized: missing or invalid API key." } });
    let body: { query?: unknown; max_results?: unknown };
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return send(400, { detail: { error: "body is not JSON" } });
    }
    const query = typeof body.query === "string" ? body.query : "";
    const max = typeof body.max_results === "number" ? body.max_results : 5;
    if (query.includes("stand-in:error")) return send(500, { detail: { error: `internal error for key ${key}` } });
    const results = query.includes("stand-in:many")
      ? Array.from({ length: 30 }, (_, i) => result(i + 1, query, "x".repeat(5_000)))
      : Array.from({ length: Math.min(max, 3) }, (_, i) => result(i + 1, query, query.includes("stand-in:echo-key") ? `the key was ${key}` : ""));
    send(200, { query, answer: `A canned answer about ${query}.`, results, response_time: 0.01 });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    key,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function result(n: number, query: string, extra: string) {
  return {
    title: `Result ${n} for ${query}`,
    url: `https://example.com/search/${n}?q=${encodeURIComponent(query)}`,
    content: `Canned extract ${n} about ${query}. ${extra}`.trim(),
    score: 1 - n / 100,
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
