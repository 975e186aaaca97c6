/**
 * `POST /browser` on the guest as a real process, driving a real headless Chromium over CDP
 * (as the box's Playwright drives its Chrome, SBX-019) through a page the test serves.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_PLAYWRIGHT, type RunningChromium, type RunningGuest, startChromium, startGuest, TEST_GUEST_TOKEN } from "../../test/unit/guest-processes";

const PAGE = `<!doctype html><html><head><title>Test page</title></head><body>
<h1 id="status">Start</h1>
<button onclick="document.getElementById('status').textContent='Clicked'">Press me</button>
<form onsubmit="event.preventDefault(); document.getElementById('status').textContent='Searched: ' + this.q.value">
  <input name="q" aria-label="Query">
</form>
<div style="height: 4000px"></div>
</body></html>`;

let site: Server;
let siteUrl: string;
let chromium: RunningChromium;
let guest: RunningGuest;

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === "/slow") return; // never answers: a navigation timeout
    res.writeHead(200, { "content-type": "text/html" });
    res.end(req.url === "/two" ? "<title>Second</title><p>Second tab</p>" : PAGE);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  chromium = await startChromium();
  guest = await startGuest({ GUEST_CDP_URL: chromium.cdpUrl, GUEST_PLAYWRIGHT: PROJECT_PLAYWRIGHT, GUEST_BROWSER_NAV_TIMEOUT_MS: "1500" });
}, 60_000);

afterAll(async () => {
  await guest?.stop();
  await chromium?.stop();
  site?.closeAllConnections();
  site?.close();
});

async function browser(body: Record<string, unknown>, base = guest.base) {
  const res = await fetch(`${base}/browser`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_GUEST_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { text?: string; image?: { media_type: string; data_base64: string }; error?: { code: string; message: string } },
  };
}

/** The ref the snapshot gives the element with this role and name, e.g. `button "Press me" [ref=e3]`. */
function refOf(text: string, role: string, name: string): string {
  const match = new RegExp(`${role} "${name}"[^\\n]*\\[ref=([a-z0-9]+)\\]`).exec(text);
  if (!match) throw new Error(`no ${role} "${name}" in:\n${text}`);
  return match[1]!;
}

describe("guest browser driver (SBX-019, OP-EXACT-2)", () => {
  it("SBX-019: navigate loads the page and answers its address, title and accessibility snapshot", async () => {
    const { status, body } = await browser({ action: "navigate", url: `${siteUrl}/` });
    expect(status).toBe(200);
    expect(body.text).toContain(`URL: ${siteUrl}/`);
    expect(body.text).toContain("Title: Test page");
    expect(body.text).toMatch(/heading "Start" \[level=1\]/);
    expect(body.text).toMatch(/button "Press me" \[ref=e\d+\]/);
  });

  it("OP-EXACT-2: snapshot gives refs that click uses; the click's effect shows in the answer", async () => {
    const snapshot = await browser({ action: "snapshot" });
    const ref = refOf(snapshot.body.text!, "button", "Press me");
    const clicked = await browser({ action: "click", ref });
    expect(clicked.status).toBe(200);
    expect(clicked.body.text).toContain(`Clicked ref ${ref}`);
    expect(clicked.body.text).toMatch(/heading "Clicked"/);
  });

  it("OP-EXACT-2: type fills an input; press_key Enter submits its form", async () => {
    const ref = refOf((await browser({ action: "snapshot" })).body.text!, "textbox", "Query");
    const typed = await browser({ action: "type", ref, text: "cheese" });
    expect(typed.status).toBe(200);
    expect(typed.body.text).toMatch(/textbox "Query"[^\n]*: cheese/);
    const pressed = await browser({ action: "press_key", key: "Enter" });
    expect(pressed.status).toBe(200);
    expect(pressed.body.text).toMatch(/heading "Searched: cheese"/);
  });

  it("OP-EXACT-2: type with submit presses Enter after filling, and a CSS selector works in place of a ref", async () => {
    const typed = await browser({ action: "type", selector: "input[name=q]", text: "bread", submit: true });
    expect(typed.status).toBe(200);
    expect(typed.body.text).toMatch(/heading "Searched: bread"/);
  });

  it("OP-EXACT-2: scroll moves the view and says where it is", async () => {
    const down = await browser({ action: "scroll", direction: "down", amount: 500 });
    expect(down.status).toBe(200);
    expect(down.body.text).toMatch(/x=0, y=500 of a \d+x\d+ page/);
    const up = await browser({ action: "scroll", direction: "up" });
    expect(up.body.text).toMatch(/x=0, y=0/);
  });

  it("SBX-014: screenshot is a 1280x720 PNG, base64", async () => {
    const { status, body } = await browser({ action: "screenshot" });
    expect(status).toBe(200);
    expect(body.image?.media_type).toBe("image/png");
    const png = Buffer.from(body.image!.data_base64, "base64");
    expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    // IHDR: width and height as big-endian 32-bit integers at bytes 16 and 20.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 720]);
  });

  it("OP-EXACT-2: tabs opens, lists, selects and closes tabs", async () => {
    const opened = await browser({ action: "tabs", tab_action: "new", url: `${siteUrl}/two` });
    expect(opened.status).toBe(200);
    expect(opened.body.text).toMatch(/^0: Test page - /m);
    expect(opened.body.text).toMatch(/^1: \[current\] Second - .*\/two$/m);
    expect((await browser({ action: "snapshot" })).body.text).toContain("Title: Second");

    const selected = await browser({ action: "tabs", tab_action: "select", index: 0 });
    expect(selected.body.text).toMatch(/^0: \[current\] Test page/m);
    expect((await browser({ action: "snapshot" })).body.text).toContain("Title: Test page");

    const closed = await browser({ action: "tabs", tab_action: "close", index: 1 });
    expect(closed.status).toBe(200);
    expect(closed.body.text).not.toContain("Second");
    const listed = await browser({ action: "tabs", tab_action: "list" });
    expect(listed.body.text).toBe(`Tabs:\n0: [current] Test page - ${siteUrl}/`);

    const missing = await browser({ action: "tabs", tab_action: "select", index: 5 });
    expect(missing.status).toBe(404);
    expect(missing.body.error?.code).toBe("browser.tab_not_found");
  });

  it("browser errors: unknown action and bad arguments are 400 naming the field", async () => {
    const unknown = await browser({ action: "fly" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.code).toBe("browser.invalid_args");
    const noUrl = await browser({ action: "navigate", url: "file:///etc/passwd" });
    expect(noUrl.status).toBe(400);
    expect(noUrl.body.error?.message).toMatch(/http or https/);
    const both = await browser({ action: "click", ref: "e1", selector: "h1" });
    expect(both.status).toBe(400);
    expect(both.body.error?.message).toMatch(/either ref .* or selector/);
  });

  it("browser errors: a ref the page does not have is 404 browser.ref_not_found", async () => {
    const { status, body } = await browser({ action: "click", ref: "e999" });
    expect(status).toBe(404);
    expect(body.error?.code).toBe("browser.ref_not_found");
    expect(body.error?.message).toContain("browser_snapshot");
  });

  it("browser errors: a page that never loads is 504 browser.navigation_timeout", async () => {
    const { status, body } = await browser({ action: "navigate", url: `${siteUrl}/slow` });
    expect(status).toBe(504);
    expect(body.error?.code).toBe("browser.navigation_timeout");
  });

  it("browser errors: an address that refuses is 502 browser.navigation_failed; typing into a button is 422 browser.action_failed", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await browser({ action: "navigate", url: `http://127.0.0.1:${port}/` });
    expect(refused.status).toBe(502);
    expect(refused.body.error?.code).toBe("browser.navigation_failed");
    expect(refused.body.error?.message).toContain("ERR_CONNECTION_REFUSED");

    await browser({ action: "navigate", url: `${siteUrl}/` });
    const button = refOf((await browser({ action: "snapshot" })).body.text!, "button", "Press me");
    const typed = await browser({ action: "type", ref: button, text: "x" });
    expect(typed.status).toBe(422);
    expect(typed.body.error?.code).toBe("browser.action_failed");
    expect(typed.body.error?.message).toContain(`could not type into ref ${button}`);
  });

  it("browser errors: without a bearer token the route is 401", async () => {
    const res = await fetch(`${guest.base}/browser`, { method: "POST", body: JSON.stringify({ action: "snapshot" }) });
    expect(res.status).toBe(401);
  });

  it("browser errors: CDP not answering is 409 browser.unavailable", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const lonely = await startGuest({ GUEST_CDP_URL: `http://127.0.0.1:${port}`, GUEST_PLAYWRIGHT: PROJECT_PLAYWRIGHT });
    try {
      const { status, body } = await browser({ action: "snapshot" }, lonely.base);
      expect(status).toBe(409);
      expect(body.error?.code).toBe("browser.unavailable");
    } finally {
      await lonely.stop();
    }
  });
});
