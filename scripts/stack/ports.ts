import { createServer } from "node:net";

/**
 * Ports below Linux's ephemeral range (32768–60999 by default). A port the kernel hands out
 * for `listen(0)` lies in that range, where the outgoing connections of a busy machine can
 * take it between our check and the real bind (a test suite under load did exactly that);
 * outgoing connections never take a port below it.
 */
const CALM_PORTS = { from: 20_000, to: 32_767 } as const;

function bindable(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      const bound = typeof address === "object" && address ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A free loopback port, picked at random below the ephemeral range (there is still a small
 * race with another process that picks the same one until it is bound again).
 *
 * @example const port = await freePort(); server.listen(port, "127.0.0.1");
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 64; attempt++) {
    const port = CALM_PORTS.from + Math.floor(Math.random() * (CALM_PORTS.to - CALM_PORTS.from + 1));
    const bound = await bindable(port);
    if (bound !== undefined) return bound;
  }
  const any = await bindable(0);
  if (any === undefined) throw new Error("no free loopback port");
  return any;
}

/** Whether something already listens on 127.0.0.1:port. */
export async function portInUse(port: number): Promise<boolean> {
  return (await bindable(port)) === undefined;
}
