import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startWsProxy, type WsProxy } from "./ws-proxy";

/** Opens a WebSocket and reports the HTTP status of a refused upgrade, or "open". */
function attempt(url: string, headers: Record<string, string> = {}): Promise<number | "open"> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once("open", () => {
      socket.close();
      resolve("open");
    });
    socket.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    socket.once("error", reject);
  });
}

describe("the local WebSocket proxy in front of Postgres", () => {
  let target: Server;
  let proxy: WsProxy;
  let allowed: string;
  const received: Buffer[] = [];

  beforeAll(async () => {
    // A stand-in for Postgres: a TCP server that records what reaches it.
    target = createServer((socket) => socket.on("data", (chunk) => received.push(chunk)));
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    const address = target.address();
    allowed = `127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    proxy = await startWsProxy({ allow: [allowed] });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((resolve) => target.close(resolve));
  });

  it("STACK: its address carries a secret path that differs on every start", async () => {
    expect(proxy.address).toMatch(/^127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}$/);
    const other = await startWsProxy({ allow: [allowed] });
    await other.close();
    expect(other.address.split("/")[1]).not.toBe(proxy.address.split("/")[1]);
  });

  it("STACK: bridges an upgrade to the secret path to the allowed Postgres", async () => {
    const socket = new WebSocket(`ws://${proxy.address}/v1?address=${allowed}`);
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    socket.send(Buffer.from("startup"));
    for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    socket.close();
    expect(Buffer.concat(received).toString()).toBe("startup");
  });

  it("STACK: refuses an upgrade that carries an Origin header, as every browser page sends", async () => {
    expect(await attempt(`ws://${proxy.address}/v1?address=${allowed}`, { origin: "https://example.com" })).toBe(403);
    expect(await attempt(`ws://${proxy.address}/v1?address=${allowed}`, { origin: "null" })).toBe(403);
  });

  it("STACK: refuses an upgrade to any other path, the driver's usual /v1 included", async () => {
    const port = proxy.address.split("/")[0];
    expect(await attempt(`ws://${port}/v1?address=${allowed}`)).toBe(404);
    expect(await attempt(`ws://${port}/${proxy.address.split("/")[1]!.slice(1)}/v1?address=${allowed}`)).toBe(404);
    expect(await attempt(`ws://${proxy.address}/v2?address=${allowed}`)).toBe(404);
  });
});
