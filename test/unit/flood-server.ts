/**
 * A local HTTP server (127.0.0.1) that answers some requests with a flood: up to 100 MB of one
 * byte, as JSON or as one never-ending event of an event stream, and counts the bytes the
 * socket took before the client stopped reading. Tests of bounded reads use it as any peer:
 * an MCP server, an authorization server, the forge, a model provider, Tavily, an asset.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const FLOOD_BYTES = 100 * 1024 * 1024;

export type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => "flood-json" | "flood-events" | undefined;

export interface FloodServer {
  url: string;
  /** Bytes of floods the socket accepted so far. */
  written: () => number;
  /** Resolves when every flood so far has ended (the client went away or all was sent). */
  settled: () => Promise<void>;
  close: () => Promise<void>;
}

/** Writes `total` bytes of `fill` after `head`, as fast as the client reads, until it goes away. */
function flood(response: ServerResponse, head: string, count: (n: number) => void): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, "a");
  let sent = 0;
  return new Promise((resolve) => {
    const done = () => resolve();
    response.on("close", done);
    const pump = () => {
      while (sent < FLOOD_BYTES && !response.destroyed) {
        sent += chunk.length;
        const more = response.write(chunk, (error) => error || count(chunk.length));
        if (!more) return void response.once("drain", pump);
      }
      response.end();
    };
    response.write(head);
    pump();
  });
}

export async function startFloodServer(handler: Handler): Promise<FloodServer> {
  let written = 0;
  const floods: Promise<void>[] = [];
  const server = createServer(async (request, response) => {
    let body = "";
    for await (const part of request) body += part;
    const kind = handler(request, body, response);
    if (kind === "flood-json") {
      response.writeHead(200, { "content-type": "application/json" });
      floods.push(flood(response, '{"padding":"', (n) => (written += n)));
    } else if (kind === "flood-events") {
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      floods.push(flood(response, "event: message\ndata: ", (n) => (written += n)));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    written: () => written,
    settled: async () => void (await Promise.all(floods)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON answer. */
export function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
