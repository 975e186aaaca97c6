/**
 * The web terminal as a real process: bundled as the images run it, started on a free port
 * with a secret file, driven over HTTP and WebSocket.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";

const SECRET = "Zm9vYmFyYmF6cXV4MDEyMzQ1Njc4";
let dir: string;
let cwd: string;
let terminal: ChildProcess;
let base: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "terminal-test-"));
  cwd = join(dir, "home");
  await mkdir(cwd);
  const assets = join(dir, "assets");
  await mkdir(join(assets, "@xterm/xterm/lib"), { recursive: true });
  await writeFile(join(assets, "@xterm/xterm/lib/xterm.js"), "/* xterm */");
  await writeFile(join(dir, "secret"), `${SECRET}\n`);
  const bundle = join(dir, "terminal.cjs");
  await build({
    entryPoints: [fileURLToPath(new URL("./main.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    target: "node24",
    format: "cjs",
    external: ["@lydell/node-pty", "bufferutil", "utf-8-validate"],
    outfile: bundle,
    logLevel: "warning",
  });
  terminal = spawn(process.execPath, [bundle, "--secret-file", join(dir, "secret"), "--port", "0", "--host", "127.0.0.1", "--cwd", cwd, "--assets", assets], {
    // The image installs node-pty beside the bundle; here it comes from the project's packages.
    env: { ...process.env, NODE_PATH: fileURLToPath(new URL("../../node_modules", import.meta.url)), TERMINAL_TEST_MARK: "inherited" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    terminal.once("exit", (code) => reject(new Error(`terminal exited with ${code}`)));
    terminal.stdout!.on("data", (chunk: Buffer) => {
      const match = /TERMINAL_LISTENING (\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
  });
  base = `http://127.0.0.1:${port}`;
}, 30_000);

afterAll(async () => {
  terminal?.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
});

/** The status a WebSocket upgrade on `path` is answered with (101 when it opens). */
function upgradeStatus(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${base.replace("http", "ws")}${path}`);
    socket.once("open", () => {
      socket.close();
      resolve(101);
    });
    socket.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    socket.once("error", (err) => reject(err));
  });
}

describe("SBX-025: only under the secret path", () => {
  it("SBX-025: the page and its assets answer under /t/<secret>/, and /t/<secret> redirects there", async () => {
    const page = await fetch(`${base}/t/${SECRET}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('src="xterm.js"');
    const asset = await fetch(`${base}/t/${SECRET}/xterm.js`);
    expect(await asset.text()).toBe("/* xterm */");
    const bare = await fetch(`${base}/t/${SECRET}`, { redirect: "manual" });
    expect(bare.status).toBe(301);
    expect(bare.headers.get("location")).toBe(`${SECRET}/`);
  });
  it("SBX-025: every other path is 404: the root, a wrong or shortened secret, unknown files", async () => {
    for (const path of ["/", "/ws", "/t/", `/t/${SECRET.slice(0, -1)}/`, `/t/${SECRET}x/`, `/t/${SECRET}/nope`, `/x/t/${SECRET}/`]) {
      expect((await fetch(`${base}${path}`)).status, path).toBe(404);
    }
  });
  it("SBX-025: a WebSocket opens only at /t/<secret>/ws; elsewhere the upgrade is 404", async () => {
    expect(await upgradeStatus(`/t/${SECRET}/ws`)).toBe(101);
    for (const path of ["/ws", "/", `/t/${SECRET}/`, `/t/wrong-secret-0123456789/ws`, `/t/${SECRET}/ws/x`]) {
      expect(await upgradeStatus(path), path).toBe(404);
    }
  });
});

describe("SBX-024: a login shell per connection", () => {
  it("SBX-024/SBX-027: keystrokes reach bash in the configured directory, which inherits the environment; resize applies", async () => {
    const socket = new WebSocket(`${base.replace("http", "ws")}/t/${SECRET}/ws`);
    let seen = "";
    socket.on("message", (data) => {
      seen += data.toString();
    });
    await new Promise((resolve) => socket.once("open", resolve));
    socket.send(JSON.stringify({ type: "resize", cols: 132, rows: 40 }));
    socket.send(JSON.stringify({ type: "input", data: 'echo "[$(pwd)|$TERMINAL_TEST_MARK|$(stty size)|$((6*7))]"\r' }));
    const deadline = Date.now() + 10_000;
    const expected = `[${cwd}|inherited|40 132|42]`;
    while (!seen.includes(expected) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(seen).toContain(expected);
    socket.send(JSON.stringify({ type: "input", data: "exit\r" }));
    const code = await new Promise<number>((resolve) => socket.once("close", resolve));
    expect(code).toBe(1000);
  });
});
