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
});
