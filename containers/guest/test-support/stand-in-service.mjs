#!/usr/bin/env node
// A stand-in for Xvnc, websockify or Chromium on a machine that has none: it recognises its
// role from the arguments the guest passes, prints them, and listens where the real program
// would. As Chromium it writes its cookie file when it gets SIGTERM (as Chromium flushes its
// profile on a clean exit) and refuses a profile that carries another box's lock.
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer as createHttp } from "node:http";
import { createServer as createTcp } from "node:net";
import { join } from "node:path";

const args = process.argv.slice(2);
console.log(JSON.stringify({ started: process.pid, args }));
const option = (prefix) => args.find((a) => a.startsWith(prefix))?.slice(prefix.length);

if (args.includes("-rfbport")) {
  createTcp((socket) => socket.on("error", () => undefined).end("RFB 003.008\n")).listen(Number(args[args.indexOf("-rfbport") + 1]), "127.0.0.1");
} else if (args[0] === "--web") {
  const [host, port] = args[2].split(":");
  createHttp((_req, res) => res.end("stand-in noVNC")).listen(Number(port), host);
} else if (option("--remote-debugging-port=")) {
  const profile = option("--user-data-dir=");
  const lock = join(profile, "SingletonLock");
  if (existsSync(lock)) {
    console.error("profile locked by another box");
    process.exit(21);
  }
  mkdirSync(join(profile, "Default"), { recursive: true });
  symlinkSync(`stand-in-host-${process.pid}`, lock);
  const server = createHttp((_req, res) => res.end(JSON.stringify({ Browser: "StandIn/1.0", args })));
  server.listen(Number(option("--remote-debugging-port=")), "127.0.0.1");
  process.on("SIGTERM", () => {
    writeFileSync(join(profile, "Default", "Cookies"), `flushed ${option("--lang=")}`);
    rmSync(lock, { force: true });
    process.exit(0);
  });
} else {
  console.error(`stand-in: unknown role for ${args.join(" ")}`);
  process.exit(2);
}
