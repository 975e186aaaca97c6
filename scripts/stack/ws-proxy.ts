import { createConnection } from "node:net";
import { createServer, type Server } from "node:http";
import { WebSocketServer, type RawData } from "ws";

export interface WsProxy {
  port: number;
  /**
   * Arrival times (ms) of the client's WebSocket messages. The Neon driver sends each
   * pipelined query batch as one message, so these count Postgres round trips.
   */
  readonly clientMessages: number[];
  /** The value for NEON_WS_PROXY: where the Neon driver opens its WebSocket. */
  address: string;
  close(): Promise<void>;
}

/**
 * The WebSocket-to-TCP bridge the Neon serverless driver needs in front of a plain
 * Postgres: the same driver path as production, pointed at a local server. Only
 * the allowed Postgres address is reachable through it.
 *
 * @example
 *   const proxy = await startWsProxy({ allow: ["127.0.0.1:5432"] });
 *   // neonConfig.wsProxy = () => `${proxy.address}/v1?address=127.0.0.1:5432`
 */
export async function startWsProxy(options: { allow: string[]; port?: number; countRoundTrips?: boolean }): Promise<WsProxy> {
  const allowed = new Set(options.allow);
  const clientMessages: number[] = [];
  const http: Server = createServer((_req, res) => {
    res.writeHead(426, { "content-type": "text/plain" }).end("WebSocket upgrade required\n");
  });
  const wss = new WebSocketServer({ server: http });
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
    tcp.on("connect", () => {
      connected = true;
      for (const chunk of pending.splice(0)) tcp.write(chunk);
    });
    tcp.on("data", (data) => socket.readyState === socket.OPEN && socket.send(data));
    tcp.on("close", () => socket.close());
    tcp.on("error", () => socket.close());
    socket.on("message", (data: RawData) => {
      if (options.countRoundTrips) clientMessages.push(Date.now());
      const chunk = toBuffer(data);
      if (connected) tcp.write(chunk);
      else pending.push(chunk);
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
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => http.close(() => resolve()));
      }),
  };
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
