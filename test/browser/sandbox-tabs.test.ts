import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, signedInPage, until } from "./browser";

/**
 * The Browser and CLI tabs (UI-011..014, OP-UI-9). The last two tests NEED the container
 * engine and the sandbox images (the stack builds them when an engine is present).
 */
describe("ISSUE-12: the Browser and CLI tabs", () => {
  let chromium: Chromium;
  let page: Page;
  let guildId: string;
  const apiUrl = inject("apiUrl");
  const suffix = Math.random().toString(36).slice(2, 8);

  beforeAll(async () => {
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
    guildId = (await api("POST", "/api/guilds", { body: { name: `Sandbox tabs ${suffix}` } })).json.id;
  });
  afterAll(async () => {
    await api("DELETE", `/api/guilds/${guildId}`);
    await chromium?.close();
  });

  const newAgent = async (settings: Record<string, unknown>) =>
    (await api("POST", `/api/guilds/${guildId}/agents`, { body: { name: "Boxed", ...settings } })).json;
  const tabs = () => page.getByRole("navigation", { name: "Agent pages" });

  it("OP-UI-9: the Browser tab shows only for an agent with browser access, the CLI tab while its cli flag is on", async () => {
    const plain = await newAgent({});
    await page.goto(`${apiUrl}/agents/${plain.id}`);
    await tabs().getByRole("link", { name: "CLI" }).waitFor();
    expect(await tabs().getByRole("link", { name: "Browser" }).count()).toBe(0);
    const off = await newAgent({ cli: false, browser: true });
    await page.goto(`${apiUrl}/agents/${off.id}`);
    await tabs().getByRole("link", { name: "Browser" }).waitFor();
    expect(await tabs().getByRole("link", { name: "CLI" }).count()).toBe(0);
  });

  it("UI-011 / UI-012 / UI-013: the Browser tab brings the box up, draws the 1280x720 desktop scaled into the pane, and its clipboard strip pastes and copies (needs the engine)", async () => {
    const agent = await newAgent({ browser: true });
    await page.goto(`${apiUrl}/agents/${agent.id}`);
    await tabs().getByRole("link", { name: "Browser" }).click();
    await page.locator("iframe.sandbox-browser").waitFor({ timeout: 120_000 });
    const status = page.getByTestId("vnc-connection");
    await until(async () => (await status.textContent())?.startsWith("Connected") ?? false, "noVNC connects", 60_000).catch(async (error: Error) => {
      // What the console and the object said, for a failure on a loaded machine.
      const state = await api("GET", `/api/agents/${agent.id}/sandbox`);
      throw new Error(`${error.message}; the tab says ${JSON.stringify(await status.textContent())}; the sandbox: ${state.text}`);
    });
    // The frame is there once its page said it connected.
    const frame = page.frames().find((f) => f.url().includes(`/api/agents/${agent.id}/browser/vnc/`))!;
    // The framebuffer keeps its size; the canvas is drawn (not one flat colour) and fits the pane.
    // The framebuffer keeps its size; the canvas is drawn (not one flat colour) and fits the pane.
    // (Page-side code as text: this file is type-checked without the DOM's types.)
    const drawn = `(() => {
      const canvas = document.querySelector("canvas");
      if (!canvas || canvas.width === 0) return false;
      const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      const colours = new Set();
      for (let i = 0; i < pixels.length && colours.size < 8; i += 4 * 97) colours.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
      return colours.size >= 4;
    })()`;
    await until(async () => (await frame.evaluate(drawn)) === true, "the desktop is drawn", 60_000);
    const size = (await frame.evaluate(`(() => {
      const canvas = document.querySelector("canvas");
      return { width: canvas.width, height: canvas.height, shown: canvas.getBoundingClientRect().width, pane: document.body.clientWidth };
    })()`)) as { width: number; height: number; shown: number; pane: number };
    expect(size.width).toBe(1280);
    expect(size.height).toBe(720);
    expect(size.shown).toBeLessThanOrEqual(size.pane);
    await screenshot(page, "browser-tab");

    // UI-013: text pasted to the box lands in its browser's address bar; what is copied there comes back.
    const text = `clip-${suffix}`;
    await page.getByRole("textbox", { name: "Clipboard" }).fill(text);
    await page.getByRole("button", { name: "Paste to box" }).click();
    const canvas = frame.locator("canvas");
    const box = (await canvas.boundingBox())!;
    // The address bar of the box's Chromium, about 47 px down the 720 px desktop.
    await canvas.click({ position: { x: box.width / 2, y: (box.height * 47) / 720 } });
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Control+V");
    // The box's browser asks the X clipboard, which asks the console: the text lands a moment later.
    await new Promise((r) => setTimeout(r, 2000));
    await page.keyboard.press("End");
    await page.keyboard.type("-back");
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Control+C");
    const copy = page.getByRole("button", { name: "Copy from box" });
    await until(async () => copy.isEnabled(), "the box's clipboard reaches the console", 15_000);
    await copy.click();
    await until(
      async () => (await page.getByRole("textbox", { name: "Clipboard" }).inputValue()) === `${text}-back`,
      "the copied text is in the strip",
      15_000,
    );
  }, 240_000);

  it("UI-014: the CLI tab opens a root shell in the box; a typed command's output appears (needs the engine)", async () => {
    const agent = await newAgent({ coding: true });
    await page.goto(`${apiUrl}/agents/${agent.id}/cli`);
    await page.locator("iframe.sandbox-cli").waitFor({ timeout: 120_000 });
    const frameOf = () => page.frames().find((f) => f.url().includes(`/api/agents/${agent.id}/cli/tty/`));
    await until(async () => frameOf() !== undefined, "the terminal's frame loads");
    const frame = frameOf()!;
    await frame.locator(".xterm-helper-textarea").waitFor();
    // The terminal's buffer (the page's xterm.js `term`), else the rendered rows.
    const screen = async () =>
      (await frame.evaluate(`(() => {
        const xterm = typeof term !== "undefined" ? term : window.term;
        if (!xterm) return document.querySelector(".xterm-rows")?.textContent ?? "";
        const lines = [];
        for (let i = 0; i < xterm.buffer.active.length; i++) lines.push(xterm.buffer.active.getLine(i)?.translateToString() ?? "");
        return lines.join("\\n");
      })()`)) as string;
    await until(async () => /[#$] *$/m.test(await screen()), "the shell prompt", 30_000);
    await frame.locator(".xterm-helper-textarea").focus();
    await page.keyboard.type("echo tab-$((6*7)) $(whoami)\n");
    await until(async () => /tab-42 root/.test(await screen()), "the command's output", 15_000);
    await screenshot(page, "cli-tab");
  }, 240_000);

  /**
   * The tab is told its ticket ends a few seconds from now (the start's answer, rewritten on
   * its way to the page; the real ticket lives 15 minutes): it must ask for a new one before
   * then, and load the frame under that one when the operator reconnects.
   */
  const shortTicket = async (agentId: string, view: "browser" | "cli", lifeMs: number) => {
    let expiresAt = 0;
    await page.route(`**/api/agents/${agentId}/${view}/start`, async (route) => {
      const response = await route.fetch();
      const json = await response.json();
      expiresAt = Date.now() + lifeMs;
      await route.fulfill({ response, json: { ...json, expires_at: new Date(expiresAt).toISOString() } });
    });
    const renewal = page.waitForResponse((r) => r.url().endsWith(`/api/agents/${agentId}/${view}/ticket`) && r.request().method() === "POST", {
      timeout: 120_000,
    });
    return { renewal, expiresAt: () => expiresAt };
  };

  it("UI-011: the Browser tab renews its view ticket before it expires, and Reconnect loads the view under the new one", async () => {
    const agent = await newAgent({ browser: true });
    const { renewal, expiresAt } = await shortTicket(agent.id, "browser", 6_000);
    await page.goto(`${apiUrl}/agents/${agent.id}/browser`);
    const frame = page.locator("iframe.sandbox-browser");
    await frame.waitFor({ timeout: 120_000 });
    const first = (await frame.getAttribute("src"))!;
    const renewed = await renewal;
    expect(Date.now()).toBeLessThan(expiresAt());
    expect(renewed.status()).toBe(200);
    const next = (await renewed.json()) as { vnc_url: string; expires_at: string };
    expect(next.vnc_url).not.toBe(first);
    expect(next.vnc_url.replace(/vnc\/[^/]+\//, "vnc/T/")).toBe(first.replace(/vnc\/[^/]+\//, "vnc/T/"));
    expect(Date.parse(next.expires_at) - Date.now()).toBeGreaterThan(10 * 60_000);
    // A renewal alone leaves the open frame as it is.
    expect(await frame.getAttribute("src")).toBe(first);
    await page.getByRole("button", { name: "Reconnect" }).click();
    await until(async () => (await frame.getAttribute("src")) === next.vnc_url, "the frame loads under the new ticket");
    // The view's own page answers under the new ticket.
    expect((await fetch(new URL(next.vnc_url, apiUrl))).status).toBe(200);
    await page.unroute(`**/api/agents/${agent.id}/browser/start`);
  }, 240_000);

  it("UI-014: the CLI tab renews its view ticket before it expires, and after Reconnect the terminal works under the new one (needs the engine)", async () => {
    const agent = await newAgent({});
    const { renewal, expiresAt } = await shortTicket(agent.id, "cli", 8_000);
    await page.goto(`${apiUrl}/agents/${agent.id}/cli`);
    const frame = page.locator("iframe.sandbox-cli");
    await frame.waitFor({ timeout: 120_000 });
    const first = (await frame.getAttribute("src"))!;
    const renewed = await renewal;
    expect(Date.now()).toBeLessThan(expiresAt());
    const next = (await renewed.json()) as { tty_url: string };
    expect(next.tty_url).not.toBe(first);
    await page.getByRole("button", { name: "Reconnect" }).click();
    await until(async () => (await frame.getAttribute("src")) === next.tty_url, "the frame loads under the new ticket");
    await until(async () => page.frames().some((f) => f.url().endsWith(next.tty_url)), "the terminal's frame under the new ticket", 30_000);
    const terminal = page.frames().find((f) => f.url().endsWith(next.tty_url))!;
    await terminal.locator(".xterm-helper-textarea").waitFor();
    const rows = async () => (await terminal.locator(".xterm-rows").textContent()) ?? "";
    await until(async () => /[#$]/.test(await rows()), "the shell prompt", 30_000);
    await terminal.locator(".xterm-helper-textarea").focus();
    await page.keyboard.type("echo renewed-$((6*7))\n");
    await until(async () => /renewed-42/.test(await rows()), "the command's output", 15_000);
    await page.unroute(`**/api/agents/${agent.id}/cli/start`);
  }, 240_000);
});
