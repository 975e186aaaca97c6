/**
 * The sandbox images for real: both built from containers/ (docker's cache makes this quick
 * after the first time), boxes started with their token as the sandbox object starts them,
 * their guest called at the container's bridge address. Skipped, with the reason, only when
 * no Docker engine answers.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { authed, type Box, buildImages, dockerUnavailable, runBox } from "./boxes";

const unavailable = dockerUnavailable();
if (unavailable) console.warn(`sandbox image tests skipped: ${unavailable}`);

const boxes: Box[] = [];
const start = async (...args: Parameters<typeof runBox>) => {
  const box = await runBox(...args);
  boxes.push(box);
  return box;
};

beforeAll(async () => {
  if (unavailable) return;
  const seconds = await buildImages();
  console.info(`images built in ${seconds.lite.toFixed(1)} s (lite) and ${seconds.standard.toFixed(1)} s (standard)`);
}, 900_000);

afterAll(async () => {
  await Promise.all(boxes.map((box) => box.remove()));
});

/** Reads what a terminal WebSocket prints until `expected` shows up (or 10 s pass). */
async function terminalOutput(url: string, input: string, expected: string): Promise<string> {
  const socket = new WebSocket(url);
  let seen = "";
  socket.on("message", (data) => {
    seen += data.toString();
  });
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  socket.send(JSON.stringify({ type: "input", data: input }));
  const deadline = Date.now() + 10_000;
  while (!seen.includes(expected) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  socket.close();
  return seen;
}

function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once("open", () => {
      socket.close();
      resolve(101);
    });
    socket.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    socket.once("error", reject);
  });
}

/**
 * The script launcher in a box (SCRIPT-034/035/037): scripts are put through the guest's file
 * API, as materialisation writes them, and run as the script tools run them.
 */
function scriptLauncherTests(current: () => Box) {
  const putScript = async (name: string, source: string) => {
    const box = current();
    const res = await fetch(`${box.guest}/files?path=${encodeURIComponent(`/home/agent/scripts/${name}.py`)}`, authed(box, { method: "PUT", body: source }));
    expect(res.status).toBe(200);
  };
  const report = `import json, os, sys
raw = sys.stdin.read()
print(json.dumps({"stdin": raw, "env": os.environ.get("GUILDS_SCRIPT_ARGS"), "cwd": os.getcwd(), "key": os.environ.get("API_KEY")}))
`;

  it("SCRIPT-035/SCRIPT-037: the arguments reach the script on stdin and in GUILDS_SCRIPT_ARGS, byte for byte, with the command's environment, in /home/agent", async () => {
    await putScript("report_args", report);
    const args = JSON.stringify({ city: "Zürich", days: [1, 2], note: "a 'quoted' $HOME" });
    const run = await current().exec("cd /tmp && guilds-script-run report_args", { GUILDS_SCRIPT_ARGS: args, API_KEY: "k-123" });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ stdin: args, env: args, cwd: "/home/agent", key: "k-123" });
  });

  it("SCRIPT-037: without arguments (unset or empty) the script reads {} on stdin and in GUILDS_SCRIPT_ARGS", async () => {
    await putScript("report_args", report);
    for (const env of [undefined, { GUILDS_SCRIPT_ARGS: "" }]) {
      const run = await current().exec("guilds-script-run report_args", env);
      expect(run.exitCode).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ stdin: "{}", env: "{}" });
    }
  });

  it("SCRIPT-034: the command exits with the script's code, and its prints come before its traceback", async () => {
    await putScript("exits", "import sys\nprint('partial')\nsys.exit(7)\n");
    expect(await current().exec("guilds-script-run exits")).toMatchObject({ exitCode: 7, stdout: "partial\n" });
    await putScript("fails", "print('before')\nraise ValueError('boom')\n");
    const failed = await current().exec("guilds-script-run fails 2>&1");
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toMatch(/^before\nTraceback \(most recent call last\):\n[\s\S]*ValueError: boom\n$/);
  });

  it("SCRIPT-034: a missing script says so on stderr with exit 127; a name outside the catalog's rule runs nothing", async () => {
    const missing = await current().exec("guilds-script-run not_there");
    expect(missing).toMatchObject({ exitCode: 127, stdout: "" });
    expect(missing.stderr).toBe("guilds-script-run: no script named not_there (/home/agent/scripts/not_there.py does not exist)\n");
    await current().exec("mkdir -p /home/agent/x && echo 'print(\"escaped\")' > /home/agent/x/evil.py && echo 'print(1)' > /home/agent/scripts/ok.py");
    for (const args of ["../x/evil", "Upper", "-c", "'a b'", "ok ok", "''", `${"a".repeat(64)}`]) {
      const refused = await current().exec(`guilds-script-run ${args}`);
      expect(refused.exitCode, args).toBe(2);
      expect(refused.stdout, args).toBe("");
      expect(refused.stderr, args).toContain("expected one script name matching");
    }
    expect((await current().exec("guilds-script-run ok")).stdout).toBe("1\n");
  });
}

describe.skipIf(unavailable)("SBX-013: the lite box", () => {
  let box: Box;
  beforeAll(async () => {
    box = await start("lite");
  }, 60_000);

  scriptLauncherTests(() => box);

  it("SBX-013: the guest runs Node 24 under tini and commands run in /home/agent; the token is not in their environment", async () => {
    const { stdout, exitCode } = await box.exec("node --version; cat /proc/1/comm; pwd; env | grep -c GUEST_ || true");
    expect(exitCode).toBe(0);
    expect(stdout).toBe("v24.21.0\ntini\n/home/agent\n0\n");
  });

  it("SBX-024/SBX-025: agent-cli-start prints one secret segment; the terminal answers under it only, WebSocket included", async () => {
    const first = await box.exec("agent-cli-start");
    expect(first.exitCode).toBe(0);
    const secret = first.stdout.trim();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const again = await box.exec("agent-cli-start; stat -c %a /run/guilds/cli-secret");
    expect(again.stdout).toBe(`${secret}\n600\n`);
    const base = `http://${box.ip}:7681`;
    expect((await fetch(`${base}/t/${secret}/`)).status).toBe(200);
    for (const path of ["/", "/ws", "/token", `/t/${secret.slice(1)}/`, `/t/${secret}/../`, "/t/x/ws"]) {
      expect((await fetch(`${base}${path}`)).status, path).toBe(404);
    }
    const ws = `ws://${box.ip}:7681`;
    for (const path of ["/ws", `/t/${secret}/`, "/t/wrong-secret-000000000000000/ws"]) expect(await upgradeStatus(`${ws}${path}`), path).toBe(404);
    const seen = await terminalOutput(`${ws}/t/${secret}/ws`, 'echo "[$(pwd):$((6*7))]"\r', "[/home/agent:42]");
    expect(seen).toContain("[/home/agent:42]");
  });

  it("SBX-024: calls at the same time share one terminal and one secret", async () => {
    await box.exec("pkill -f '^/usr/local/bin/node /opt/terminal/'; rm -f /run/guilds/cli-secret; sleep 0.2");
    const outputs = await Promise.all([1, 2, 3].map(() => box.exec("agent-cli-start")));
    expect(new Set(outputs.map((o) => o.stdout)).size).toBe(1);
    expect(outputs[0]!.stdout.trim()).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((await box.exec("pgrep -cf '^/usr/local/bin/node /opt/terminal/'")).stdout).toBe("1\n");
  });

  it("SBX-017: the time zone follows the geo-IP answer, and falls back to UTC when the lookup fails or answers nonsense", async () => {
    const answers = ["Europe/Berlin", "../../etc/passwd"];
    const server: Server = createServer((_req, res) => res.end(answers.shift() ?? "")).listen(0, "0.0.0.0");
    await new Promise((r) => server.once("listening", r));
    const port = (server.address() as { port: number }).port;
    const gateway = box.ip.replace(/\.\d+$/, ".1");
    try {
      const lookup = (url: string) => box.exec(`rm -f /run/guilds/timezone; SANDBOX_GEOIP_URL=${url} sandbox-timezone; date +%Z`);
      expect((await lookup(`http://${gateway}:${port}/`)).stdout).toMatch(/^Europe\/Berlin\nCES?T\n$/);
      expect((await lookup(`http://${gateway}:${port}/`)).stdout).toBe("UTC\nUTC\n");
      const offline = await lookup("http://192.0.2.1/");
      expect(offline.stdout).toBe("UTC\nUTC\n");
      // Cached for the container's lifetime: a second call does not look up again.
      expect((await box.exec("SANDBOX_GEOIP_URL=http://192.0.2.1/ sandbox-timezone")).stdout).toBe("UTC\n");
    } finally {
      server.close();
    }
  });
});

describe.skipIf(unavailable)("SBX-036: the save on shutdown", () => {
  it("SBX-036: a box stopped by the platform pushes its home to the save address before it exits", async () => {
    const received: Buffer[] = [];
    const server: Server = createServer((req, res) => {
      req.on("data", (chunk: Buffer) => received.push(chunk));
      req.on("end", () => res.end("{}"));
    }).listen(0, "0.0.0.0");
    await new Promise((r) => server.once("listening", r));
    try {
      const probe = await start("lite");
      const gateway = probe.ip.replace(/\.\d+$/, ".1");
      const box = await start("lite", { GUEST_HOME_SAVE_URL: `http://${gateway}:${(server.address() as { port: number }).port}/homes/x` });
      // As the platform does for an agent with no saved home: only a home restored (or declared
      // ready) is ever pushed over the saved one.
      expect((await fetch(`${box.guest}/home/ready`, authed(box, { method: "POST" }))).status).toBe(200);
      await box.exec("mkdir -p /home/agent/work && echo kept > /home/agent/work/state.txt");
      await box.stop();
      const restored = await fetch(`${probe.guest}/home/archive`, authed(probe, { method: "PUT", body: Buffer.concat(received) }));
      expect(restored.status).toBe(200);
      expect((await probe.exec("cat /home/agent/work/state.txt")).stdout).toBe("kept\n");
    } finally {
      server.close();
    }
  });
});

describe.skipIf(unavailable)("SBX-014: the standard box", () => {
  let box: Box;
  beforeAll(async () => {
    box = await start("standard");
  }, 60_000);

  scriptLauncherTests(() => box);

  const post = (target: Box, path: string, body: unknown) =>
    fetch(`${target.guest}${path}`, authed(target, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } }));
  const cookieScript = (mode: "set" | "get") => `node -e '
    const { chromium } = require("/opt/playwright/node_modules/playwright-core");
    (async () => {
      const browser = await chromium.connectOverCDP("http://127.0.0.1:9222");
      const context = browser.contexts()[0];
      if ("${mode}" === "set") await context.addCookies([{ name: "sbx", value: "kept", domain: "example.test", path: "/", expires: Math.floor(Date.now() / 1000) + 3600 }]);
      console.log((await context.cookies("https://example.test/")).map((c) => c.name + "=" + c.value).join(","));
      process.exit(0);
    })().catch((e) => { console.error(e.message); process.exit(1); });'`;

  it("SBX-014/SBX-015/SBX-019: services/start brings up the 1280x720 desktop: noVNC on 6080, Chromium's CDP inside the box only, Playwright attaches", async () => {
    const res = await post(box, "/services/start", { browser: true, language: "en-US" });
    expect(await res.json()).toEqual({ browser: true, started: ["xvnc", "websockify", "chromium"] });
    const novnc = await fetch(`http://${box.ip}:6080/vnc.html`);
    expect(novnc.status).toBe(200);
    expect(await novnc.text()).toContain("noVNC");
    // noVNC's WebSocket reaches the VNC server: it greets with the RFB protocol version.
    const rfb = new WebSocket(`ws://${box.ip}:6080/websockify`, ["binary"]);
    const greeting = await new Promise<string>((resolve, reject) => {
      rfb.once("message", (data: Buffer) => resolve(data.toString()));
      rfb.once("error", reject);
    });
    rfb.close();
    expect(greeting).toMatch(/^RFB 003\.00\d\n$/);
    const screen = await box.exec("DISPLAY=:1 xdpyinfo | grep dimensions");
    expect(screen.stdout).toContain("1280x720 pixels");
    const cdp = await box.exec("curl -fsS http://127.0.0.1:9222/json/version");
    expect(JSON.parse(cdp.stdout)).toMatchObject({ Browser: expect.stringMatching(/^Chrome\//) });
    await expect(fetch(`http://${box.ip}:9222/json/version`, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    const again = await post(box, "/services/start", { browser: true, language: "en-US" });
    expect(await again.json()).toEqual({ browser: true, started: [] });
  });

  it("SBX-014: Chromium draws no warning bar over the agent's page (unsupported command-line flag: --no-sandbox)", async () => {
    await post(box, "/services/start", { browser: true, language: "en-US" });
    const sizes = await box.exec(`node -e '
      const { chromium } = require("/opt/playwright/node_modules/playwright-core");
      (async () => {
        const browser = await chromium.connectOverCDP("http://127.0.0.1:9222");
        const page = browser.contexts()[0].pages()[0];
        console.log(JSON.stringify(await page.evaluate(() => ({ inner: innerHeight, outer: outerHeight }))));
        process.exit(0);
      })().catch((e) => { console.error(e.message); process.exit(1); });'`);
    const { inner, outer } = JSON.parse(sizes.stdout) as { inner: number; outer: number };
    // Tab strip and toolbar take 87 px of the 720-px window; the bar took 56 more (page 632 → 576 px high).
    expect(outer - inner).toBeLessThan(110);
  });

  it("SBX-036: a file and a browser cookie survive into a new box through the home archive", async () => {
    await post(box, "/services/start", { browser: true, language: "en-US" });
    const set = await box.exec(`echo survives > /home/agent/note.txt; ${cookieScript("set")}`);
    expect(set.stdout.trim()).toBe("sbx=kept");
    const saved = await fetch(`${box.guest}/home/archive?resume_browser=false`, authed(box));
    expect(saved.status).toBe(200);
    const archive = Buffer.from(await saved.arrayBuffer());

    const next = await start("standard");
    const restored = await fetch(`${next.guest}/home/archive`, authed(next, { method: "PUT", body: archive }));
    expect(restored.status).toBe(200);
    expect(((await restored.json()) as { files: number }).files).toBeGreaterThan(1);
    expect(await (await post(next, "/services/start", { browser: true, language: "en-US" })).json()).toMatchObject({
      started: ["xvnc", "websockify", "chromium"],
    });
    const read = await next.exec(`cat /home/agent/note.txt; ${cookieScript("get")}`);
    expect(read.stdout).toBe("survives\nsbx=kept\n");
  }, 90_000);

  it("SBX-024: the standard box serves the terminal too", async () => {
    const secret = (await box.exec("agent-cli-start")).stdout.trim();
    expect((await fetch(`http://${box.ip}:7681/t/${secret}/`)).status).toBe(200);
    expect((await fetch(`http://${box.ip}:7681/`)).status).toBe(404);
  });
});
