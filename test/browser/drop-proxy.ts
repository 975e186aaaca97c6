import { connect, createServer, type Socket } from "node:net";

export interface DropProxy {
  url: string;
  /** Cuts every open connection, as a network drop would. */
  dropAll(): void;
  close(): Promise<void>;
}

/**
 * A TCP pass-through in front of the stack's API, so a test can cut the browser's
 * open connections (the SSE stream among them) for real, mid-stream.
 */
export async function startDropProxy(target: string): Promise<DropProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => s.destroy());
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    dropAll() {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
