/**
 * The desktop services through the real guest process, with stand-in programs for Xvnc,
 * websockify and Chromium (this machine has none; the image test runs the real ones).
 */
import { mkdir, readFile, readlink, symlink } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/stack/ports";
import { auth, bundleGuest, type RunningGuest, startGuest, tempDir } from "./test-support/guest-process";

const STAND_IN = fileURLToPath(new URL("./test-support/stand-in-service.mjs", import.meta.url));
let temp: Awaited<ReturnType<typeof tempDir>>;
let bundle: string;
let guest: RunningGuest;
let ports: { cdp: number; novnc: number; display: number };

async function standInEnv(): Promise<Record<string, string>> {
  const vnc = await freePort();
  ports = { cdp: await freePort(), novnc: await freePort(), display: vnc - 5900 };
  return {
    GUEST_XVNC_BIN: STAND_IN,
    GUEST_CHROMIUM_BIN: STAND_IN,
    GUEST_WEBSOCKIFY_BIN: STAND_IN,
    GUEST_VNC_DISPLAY: String(ports.display),
    GUEST_CDP_URL: `http://127.0.0.1:${ports.cdp}`,
    GUEST_NOVNC_PORT: String(ports.novnc),
    GUEST_NOVNC_WEB: "/usr/share/novnc",
  };
}

beforeAll(async () => {
  temp = await tempDir("guest-services-");
  bundle = await bundleGuest(temp.dir);
  guest = await startGuest(bundle, temp.dir, await standInEnv());
}, 30_000);

afterAll(async () => {
  await guest?.stop();
  await temp?.remove();
});

const post = (path: string, body?: unknown) =>
  fetch(`${guest.base}${path}`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Every start a stand-in logged for a service: its arguments. */
async function starts(service: string): Promise<string[][]> {
  const log = await readFile(join(guest.dir, "log", `${service}.log`), "utf8").catch(() => "");
  return log
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => (JSON.parse(line) as { args: string[] }).args);
}

const cdpAnswers = () =>
  fetch(`http://127.0.0.1:${ports.cdp}/json/version`).then(
    (r) => r.ok,
    () => false,
  );

describe("SBX-014: services/start", () => {
  it("SBX-014: bad bodies are 400s naming the field; browser false starts nothing", async () => {
    expect((await post("/services/start", { language: "en-US" })).status).toBe(400);
    const language = await post("/services/start", { browser: true, language: "en US; rm -rf /" });
    expect(language.status).toBe(400);
    expect(((await language.json()) as { error: { code: string } }).error.code).toBe("services.invalid_language");
    const off = await post("/services/start", { browser: false, language: "en-US" });
    expect(await off.json()).toEqual({ browser: false, started: [] });
    expect(await starts("xvnc")).toEqual([]);
  });

  it("SBX-014/SBX-015/SBX-016: starts Xvnc at 1280x720, noVNC on its port and Chromium with CDP on loopback in the language", async () => {
    const res = await post("/services/start", { browser: true, language: "de-DE" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ browser: true, started: ["xvnc", "websockify", "chromium"] });
    expect((await starts("xvnc"))[0]).toEqual(
      expect.arrayContaining([`:${ports.display}`, "-geometry", "1280x720", "-localhost", "-rfbport", String(5900 + ports.display)]),
    );
    expect((await starts("websockify"))[0]).toEqual(["--web", "/usr/share/novnc", `0.0.0.0:${ports.novnc}`, `127.0.0.1:${5900 + ports.display}`]);
    expect((await starts("chromium"))[0]).toEqual(
      expect.arrayContaining([
        "--no-sandbox",
        // No "unsupported command-line flag" bar over the agent's pages.
        "--test-type",
        `--user-data-dir=${guest.home}/.browser`,
        "--remote-debugging-address=127.0.0.1",
        `--remote-debugging-port=${ports.cdp}`,
        "--lang=de-DE",
        "--disable-background-networking",
        "--no-first-run",
        "--disable-component-update",
        "--disable-sync",
      ]),
    );
    expect(await (await fetch(`http://127.0.0.1:${ports.novnc}/vnc.html`)).text()).toBe("stand-in noVNC");
    expect(await cdpAnswers()).toBe(true);
  });

  it("SBX-014: starting again, also several times at once, starts nothing more", async () => {
    const answers = await Promise.all([1, 2, 3].map(() => post("/services/start", { browser: true, language: "de-DE" }).then((r) => r.json())));
    expect(answers).toEqual([1, 2, 3].map(() => ({ browser: true, started: [] })));
    expect((await starts("chromium")).length).toBe(1);
    expect((await starts("xvnc")).length).toBe(1);
  });

  it("SBX-016: another language restarts Chromium alone, with that language", async () => {
    const res = await post("/services/start", { browser: true, language: "fr" });
    expect(await res.json()).toEqual({ browser: true, started: ["chromium"] });
    expect((await starts("chromium")).map((args) => args.find((a) => a.startsWith("--lang=")))).toEqual(["--lang=de-DE", "--lang=fr"]);
  });
});

describe("SBX-036: the browser around a home archive", () => {
  it("SBX-036: stop-browser ends Chromium cleanly (it wrote its profile on the way out); a second call finds none", async () => {
    const stopped = await post("/services/stop-browser");
    expect(await stopped.json()).toEqual({ stopped: true });
    expect(await readFile(join(guest.home, ".browser/Default/Cookies"), "utf8")).toBe("flushed fr");
    expect(await cdpAnswers()).toBe(false);
    expect(await (await post("/services/stop-browser")).json()).toEqual({ stopped: false });
  });

  it("SBX-036: an archive stops Chromium first, so what it writes on exit is inside, then starts it again", async () => {
    await post("/services/start", { browser: true, language: "it" });
    const before = (await starts("chromium")).length;
    const res = await fetch(`${guest.base}/home/archive`, { headers: auth });
    expect(res.status).toBe(200);
    const archive = Buffer.from(await res.arrayBuffer());
    const restored = await tempDir("guest-services-restore-");
    const other = await startGuest(bundle, restored.dir);
    try {
      const put = await fetch(`${other.base}/home/archive`, { method: "PUT", headers: auth, body: archive });
      expect(put.status).toBe(200);
      expect(await readFile(join(other.home, ".browser/Default/Cookies"), "utf8")).toBe("flushed it");
    } finally {
      await other.stop();
      await restored.remove();
    }
    const deadline = Date.now() + 10_000;
    while (!(await cdpAnswers()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect((await starts("chromium")).length).toBe(before + 1);
  });

  it("SBX-036: resume_browser=false leaves Chromium stopped after the archive", async () => {
    const res = await fetch(`${guest.base}/home/archive?resume_browser=false`, { headers: auth });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 300));
    expect(await cdpAnswers()).toBe(false);
  });

  it("SBX-036: a profile lock left by another box is cleared before Chromium starts", async () => {
    await mkdir(join(guest.home, ".browser"), { recursive: true });
    await symlink("other-box-123", join(guest.home, ".browser/SingletonLock")).catch(() => undefined);
    const res = await post("/services/start", { browser: true, language: "it" });
    expect(await res.json()).toEqual({ browser: true, started: ["chromium"] });
    expect(await readlink(join(guest.home, ".browser/SingletonLock"))).toMatch(/^stand-in-host-/);
  });
});

describe("SBX-014: a service that cannot start", () => {
  it("SBX-014: answers 503 services.failed naming the service", async () => {
    const broken = await startGuest(bundle, temp.dir, { ...(await standInEnv()), GUEST_CHROMIUM_BIN: join(temp.dir, "no-such-chromium") });
    try {
      const res = await fetch(`${broken.base}/services/start`, { method: "POST", headers: auth, body: JSON.stringify({ browser: true, language: "en-US" }) });
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("services.failed");
      expect(body.error.message).toContain("chromium");
    } finally {
      await broken.stop();
    }
  });
});
