import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createConnection } from "node:net";
import type { Duplex } from "node:stream";
import { type RawData, WebSocketServer } from "ws";
import { startSqlStandIn } from "./sql-stand-in";

export interface WsProxy {
  port: number;
  /**
   * Arrival times (ms) of the client's WebSocket messages. The Neon driver sends each
   * pipelined query batch as one message, so these count Postgres round trips.
   */
  readonly clientMessages: number[];
  /**
   * Arrival times of the messages among those that only open or close a connection (the
   * startup message, the password exchange, Terminate). Against Neon the driver pipelines
   * the opening with the first query (`pipelineConnect`) and nothing answers Terminate,
   * so none of them is a round trip of its own there.
   */
  readonly connectionMessages: number[];
  /**
   * The value for NEON_WS_PROXY: where the Neon driver opens its WebSocket, with this
   * start's secret path (`127.0.0.1:PORT/SECRET`; the driver appends `/v1?address=…`).
   */
  address: string;
  /**
   * Arrival times of the connections made to the proxy (a WebSocket, or a keep-alive
   * connection carrying `/sql` requests), when counting round trips.
   */
  readonly connections: number[];
  close(): Promise<void>;
}

export interface WsProxyOptions {
  allow: string[];
  port?: number;
  countRoundTrips?: boolean;
  /**
   * A simulated distance, one way, in ms: each message (a WebSocket message either way, a
   * `/sql` request and its answer) waits this long, and a new connection first waits two
   * round trips (TCP and TLS handshakes), so a far edge's waits are real in a benchmark.
   */
  delayMs?: number;
}

/**
 * The WebSocket-to-TCP bridge the Neon serverless driver needs in front of a plain
 * Postgres: the same driver path as production, pointed at a local server. Only
 * the allowed Postgres address is reachable through it, only under a secret path chosen
 * at each start, and never from a browser page: any upgrade that carries an `Origin`
 * header is refused (a page on any site could otherwise open ws://127.0.0.1:PORT).
 *
 * @example
 *   const proxy = await startWsProxy({ allow: ["127.0.0.1:5432"] });
 *   // neonConfig.wsProxy = () => `${proxy.address}/v1?address=127.0.0.1:5432`
 */
export async function startWsProxy(options: WsProxyOptions): Promise<WsProxy> {
  const allowed = new Set(options.allow);
  const clientMessages: number[] = [];
  const connectionMessages: number[] = [];
  const connections: number[] = [];
  const delayMs = options.delayMs ?? 0;
  const later = (fn: () => void) => (delayMs > 0 ? void setTimeout(fn, delayMs) : fn());
  const sleep = (ms: number) => new Promise<void>((resolve) => (ms > 0 ? setTimeout(resolve, ms) : resolve()));
  /** When each connection's simulated handshakes are over. */
  const handshaken = new WeakMap<object, number>();
  /** The wait before a request on `socket` is read: its handshakes left, then the way there. */
  const arrival = (socket: object) => Math.max(0, (handshaken.get(socket) ?? 0) - Date.now()) + delayMs;
  const sql = startSqlStandIn({ allow: options.allow });
  const secret = randomBytes(24).toString("base64url");
  const http: Server = createServer(async (req, res) => {
    const refusal = refuse(req, `/${secret}/sql`);
    if (refusal) {
      // Off the secret path only the WebSocket is served; a page's request (an Origin) never is.
      const [status, text] = refusal.startsWith("403") ? [403, "Forbidden\n"] : [426, "WebSocket upgrade required\n"];
      res.writeHead(status, { "content-type": "text/plain" }).end(text);
      return;
    }
    await sleep(arrival(req.socket));
    if (options.countRoundTrips) clientMessages.push(Date.now());
    if (delayMs > 0) {
      // The answer travels back as far.
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      res.end = ((...args: unknown[]) => {
        later(() => end(...args));
        return res;
      }) as ServerResponse["end"];
    }
    await sql.handle(req, res);
  });
  // The Worker keeps its connections to `/sql` open between statements, as Cloudflare does to
  // Neon. Node closes an idle one after 5 s, which races the Worker reusing it (a statement lost
  // as "connection lost"): the client side closes first.
  http.keepAliveTimeout = 120_000;
  http.headersTimeout = 125_000;
  http.on("connection", (socket) => {
    if (options.countRoundTrips) connections.push(Date.now());
    handshaken.set(socket, Date.now() + 4 * delayMs);
  });
  const wss = new WebSocketServer({ noServer: true });
  http.on("upgrade", async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refusal = refuse(request, `/${secret}/v1`);
    if (refusal) {
      // Destroyed once written: a client that keeps its side open must not keep close() waiting.
      socket.once("finish", () => socket.destroy());
      socket.end(`HTTP/1.1 ${refusal}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    // The upgrade is a request of its own: there and back before the first message may go.
    await sleep(arrival(socket) + delayMs);
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit("connection", ws, request));
  });
  wss.on("connection", (socket, request) => {
    const target = new URL(request.url ?? "/", "http://proxy").searchParams.get("address") ?? "";
    if (!allowed.has(target)) {
      socket.close(1008, "address not allowed");
      return;
    }
    const [host, port] = splitAddress(target);
    const tcp = createConnection({ host, port, noDelay: true });
    const pending: Buffer[] = [];
    let connected = false;
    let first = true;
    tcp.on("connect", () => {
      connected = true;
      for (const chunk of pending.splice(0)) tcp.write(chunk);
    });
    tcp.on("data", (data) => later(() => socket.readyState === socket.OPEN && socket.send(data)));
    tcp.on("close", () => socket.close());
    tcp.on("error", () => socket.close());
    socket.on("message", (data: RawData) => {
      const chunk = toBuffer(data);
      if (options.countRoundTrips) {
        const at = Date.now();
        clientMessages.push(at);
        // The startup message has no type byte; 'p' carries a password or SASL response; 'X' is Terminate.
        if (first || chunk[0] === 0x70 || chunk[0] === 0x58) connectionMessages.push(at);
      }
      first = false;
      later(() => {
        if (connected) tcp.write(chunk);
        else pending.push(chunk);
      });
    });
    socket.on("close", () => tcp.destroy());
    socket.on("error", () => tcp.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    port,
    clientMessages,
    connectionMessages,
    connections,
    address: `127.0.0.1:${port}/${secret}`,
    close: async () => {
      await new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        http.closeAllConnections();
        wss.close(() => http.close(() => resolve()));
      });
      await sql.close();
    },
  };
}

/** Why an upgrade is refused (an HTTP status line), or null to accept it. */
function refuse(request: IncomingMessage, path: string): string | null {
  if (request.headers.origin !== undefined) return "403 Forbidden";
  const given = Buffer.from(new URL(request.url ?? "/", "http://proxy").pathname);
  const wanted = Buffer.from(path);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return "404 Not Found";
  return null;
}

function splitAddress(address: string): [string, number] {
  const at = address.lastIndexOf(":");
  return [address.slice(0, at), Number(address.slice(at + 1))];
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
