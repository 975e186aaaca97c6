import { describe, expect, inject, it } from "vitest";
import { guildWithAgent } from "./agents";
import { api } from "./http";
import { socket } from "./sandbox-box";

/**
 * The Browser and CLI views through the real stack and a real standard box. NEEDS the
 * container engine and the sandbox images (the stack builds them when an engine is present).
 */

const START_TIMEOUT_MS = 120_000;

async function browserAgent() {
  const { guildId } = await guildWithAgent("Sandbox views");
  const created = await api("POST", `/api/guilds/${guildId}/agents`, { body: { name: "Viewer", browser: true } });
  expect(created.status, created.text).toBe(201);
  return created.json.id as string;
}

/** The box's terminal protocol: JSON messages, typed text as `input`. */
const typed = (data: string) => JSON.stringify({ type: "input", data });
const resized = (cols: number, rows: number) => JSON.stringify({ type: "resize", cols, rows });

describe("sandbox views through the stack (SBX-018, SBX-023..026, UI-012, UI-014, UI-015)", () => {
  it(
    "SBX-025 / SBX-026: the CLI view reaches the terminal only through the proxy, which prepends the secret segment; the terminal answers 404 elsewhere",
    async () => {
      const agentId = await browserAgent();
      const started = await api("POST", `/api/agents/${agentId}/cli/start`);
      expect(started.status, started.text).toBe(200);
      const ttyUrl = started.json.tty_url as string;
      const page = await fetch(new URL(ttyUrl, inject("apiUrl")));
      expect(page.status).toBe(200);
      expect(page.headers.get("content-security-policy")).toMatch(/^sandbox /);
      expect(await page.text()).toMatch(/<html/i);
      // Another ticket segment is refused before the box is asked.
      expect((await fetch(new URL(ttyUrl.replace(/tty\/[^/]+\//, "tty/forged/"), inject("apiUrl")))).status).toBe(401);
      const term = await socket(`${ttyUrl}ws`, inject("apiUrl"));
      term.ws.send(resized(120, 30));
      term.ws.send(typed("echo cli-$((6*7))\r"));
      await term.until(/cli-42/);
      // From inside the box: ttyd refuses its root and a wrong secret, the WebSocket path included.
      const probe = (path: string) =>
        `exec 3<>/dev/tcp/127.0.0.1/7681; printf 'GET ${path} HTTP/1.0\\r\\n\\r\\n' >&3; echo "probe ${path} $(head -1 <&3)"; exec 3>&-\r`;
      term.ws.send(typed(probe("/")));
      term.ws.send(typed(probe("/t/wrong/ws")));
      await term.until(/probe \/t\/wrong\/ws HTTP\/1\.[01] 404/);
      expect(term.text()).toMatch(/probe \/ HTTP\/1\.[01] 404/);
      term.ws.close();
    },
    START_TIMEOUT_MS,
  );

  it(
    "UI-015 / SBX-030: typing in the CLI view restarts the idle timer (at most every 30 s); the view's own traffic does not",
    async () => {
      const agentId = await browserAgent();
      const started = await api("POST", `/api/agents/${agentId}/cli/start`);
      expect(started.status, started.text).toBe(200);
      const term = await socket(`${started.json.tty_url}ws`, inject("apiUrl"));
      term.ws.send(resized(100, 30));
      const before = (await api("GET", `/api/agents/${agentId}/sandbox`)).json;
      expect(before.status).toBe("running");
      expect(before.idle_deadline).toBeDefined();
      // Past the 30 s within which input may not move the timer again, resizes and output only.
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 4_000));
        term.ws.send(resized(90 + i, 25));
      }
      expect((await api("GET", `/api/agents/${agentId}/sandbox`)).json.idle_deadline).toBe(before.idle_deadline);
      term.ws.send(typed("true\r"));
      const deadline = Date.now() + 10_000;
      let after = before;
      while (after.idle_deadline === before.idle_deadline && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        after = (await api("GET", `/api/agents/${agentId}/sandbox`)).json;
      }
      expect(Date.parse(after.idle_deadline) - Date.parse(before.idle_deadline)).toBeGreaterThan(30_000);
      term.ws.close();
    },
    START_TIMEOUT_MS,
  );

  it(
    "SBX-018 / UI-012: the Browser view serves noVNC's client from the box under its prefix and bridges the VNC WebSocket",
    async () => {
      const agentId = await browserAgent();
      const started = await api("POST", `/api/agents/${agentId}/browser/start`);
      expect(started.status, started.text).toBe(200);
      const vncUrl = started.json.vnc_url as string;
      const rfb = await fetch(new URL(`${vncUrl}core/rfb.js`, inject("apiUrl")));
      expect(rfb.status).toBe(200);
      expect(rfb.headers.get("access-control-allow-origin")).toBe("*");
      expect(await rfb.text()).toContain("export default class RFB");
      const vnc = await socket(`${vncUrl}websockify`, inject("apiUrl"), "binary");
      await vnc.until(/^RFB 003\.00\d\n/);
      vnc.ws.close();
    },
    START_TIMEOUT_MS,
  );
});
