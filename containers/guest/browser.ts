/**
 * `POST /browser`: the browser tools' driver. Playwright (playwright-core, loaded at run time
 * from GUEST_PLAYWRIGHT or /opt/playwright, so the bundle stays small and lite boxes need none)
 * attaches over CDP to the box's Chromium (GUEST_CDP_URL, default http://127.0.0.1:9222) and
 * keeps that connection. Element refs come from Playwright's AI snapshot (`[ref=e3]`), which
 * also resolves them (`aria-ref=e3`): a ref stays valid until the page changes.
 *
 * Errors: 400 bad arguments, 404 `browser.ref_not_found`, 409 `browser.unavailable` (CDP does
 * not answer), 422 `browser.action_failed`, 502 `browser.navigation_failed`, 504
 * `browser.navigation_timeout`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { act, BrowserFailure, bad, firstLine, goto, messageOf, report, scrollPage, settle, webUrl } from "./browser-page";
import { readJson, sendError, sendJson } from "./http-util";

export { BrowserFailure } from "./browser-page";

/** The screenshot's size, also what the Browser tab shows (SBX-014). */
export const VIEWPORT = { width: 1280, height: 720 } as const;

export interface BrowserDriverOptions {
  cdpUrl: string;
  /** playwright-core's package directory or entry file; default: resolved from /opt/playwright. */
  playwright?: string;
  navigationTimeoutMs?: number;
  actionTimeoutMs?: number;
}

export interface BrowserAnswer {
  text?: string;
  image?: { media_type: string; data_base64: string };
}

/**
 * One Chromium over CDP, one action at a time (the loop runs tools one after another; the
 * queue keeps a second caller from racing the first over the current tab).
 */
export class BrowserDriver {
  readonly #options: BrowserDriverOptions;
  #browser: Promise<Browser> | null = null;
  #current: Page | null = null;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: BrowserDriverOptions) {
    this.#options = options;
  }

  /** Runs one action; rejects with BrowserFailure. */
  run(body: unknown): Promise<BrowserAnswer> {
    const next = this.#queue.then(() => this.#dispatch(body));
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Drops the CDP connection (Chromium keeps running). */
  async close(): Promise<void> {
    const browser = await this.#browser?.catch(() => null);
    this.#browser = null;
    this.#current = null;
    // Closing a CDP-attached browser only disconnects Playwright.
    await browser?.close().catch(() => {});
  }

  async #dispatch(body: unknown): Promise<BrowserAnswer> {
    if (body === null || typeof body !== "object" || Array.isArray(body)) throw bad("the body must be a JSON object with an action");
    const args = body as Record<string, unknown>;
    switch (args.action) {
      case "navigate":
        return this.#navigate(args);
      case "snapshot":
        return { text: await report(await this.#page()) };
      case "click":
        return this.#click(args);
      case "type":
        return this.#type(args);
      case "press_key":
        return this.#pressKey(args);
      case "scroll":
        return this.#scroll(args);
      case "screenshot":
        return this.#screenshot();
      case "tabs":
        return this.#tabs(args);
      default:
        throw bad("action must be one of navigate, snapshot, click, type, press_key, scroll, screenshot, tabs");
    }
  }

  async #navigate(args: Record<string, unknown>): Promise<BrowserAnswer> {
    const url = webUrl(args.url);
    const page = await this.#page();
    await goto(page, url, this.#options.navigationTimeoutMs ?? 30_000);
    return { text: await report(page) };
  }

  async #click(args: Record<string, unknown>): Promise<BrowserAnswer> {
    const page = await this.#page();
    const target = await this.#element(page, args);
    await act(() => target.locator.click({ timeout: this.#actionTimeout() }), `click ${target.name}`);
    await settle(page);
    return { text: `Clicked ${target.name}.\n\n${await report(page)}` };
  }

  async #type(args: Record<string, unknown>): Promise<BrowserAnswer> {
    if (typeof args.text !== "string") throw bad("text must be a string");
    if (args.submit !== undefined && typeof args.submit !== "boolean") throw bad("submit must be true or false");
    const page = await this.#page();
    const target = await this.#element(page, args);
    await act(() => target.locator.fill(args.text as string, { timeout: this.#actionTimeout() }), `type into ${target.name}`);
    if (args.submit) {
      await act(() => target.locator.press("Enter", { timeout: this.#actionTimeout() }), `submit ${target.name}`);
      await settle(page);
    }
    return { text: `Typed ${JSON.stringify(args.text)} into ${target.name}${args.submit ? " and pressed Enter" : ""}.\n\n${await report(page)}` };
  }

  async #pressKey(args: Record<string, unknown>): Promise<BrowserAnswer> {
    if (typeof args.key !== "string" || args.key.length === 0 || args.key.length > 64) throw bad("key must be a key name such as Enter, Tab or Control+A");
    const page = await this.#page();
    try {
      await page.keyboard.press(args.key);
    } catch (error) {
      if (/unknown key/i.test(messageOf(error))) throw bad(`unknown key ${JSON.stringify(args.key)}; use names such as Enter, Tab, ArrowDown, Control+A`);
      throw error;
    }
    await settle(page);
    return { text: `Pressed ${args.key}.\n\n${await report(page)}` };
  }

  async #scroll(args: Record<string, unknown>): Promise<BrowserAnswer> {
    const direction = args.direction;
    if (direction !== "up" && direction !== "down" && direction !== "left" && direction !== "right") throw bad("direction must be up, down, left or right");
    const amount = args.amount ?? 600;
    if (typeof amount !== "number" || !Number.isInteger(amount) || amount < 1 || amount > 100_000)
      throw bad("amount must be a whole number of pixels from 1 to 100000");
    const page = await this.#page();
    const dx = direction === "left" ? -amount : direction === "right" ? amount : 0;
    const dy = direction === "up" ? -amount : direction === "down" ? amount : 0;
    const at = await page.evaluate(scrollPage, [dx, dy] as [number, number]);
    return { text: `Scrolled ${direction} by ${amount} px; the view's top left is now at x=${at.x}, y=${at.y} of a ${at.width}x${at.height} page.` };
  }

  async #screenshot(): Promise<BrowserAnswer> {
    const page = await this.#page();
    const png = await page.screenshot({ type: "png", timeout: this.#actionTimeout() });
    return {
      text: `Screenshot of ${page.url()} (${VIEWPORT.width}x${VIEWPORT.height}).`,
      image: { media_type: "image/png", data_base64: png.toString("base64") },
    };
  }

  async #tabs(args: Record<string, unknown>): Promise<BrowserAnswer> {
    const context = await this.#context();
    const pages = () => context.pages();
    const index = args.index;
    if (index !== undefined && (typeof index !== "number" || !Number.isInteger(index) || index < 0)) throw bad("index must be a tab number from tabs list");
    const tab = (i: number) => {
      const page = pages()[i];
      if (!page) throw new BrowserFailure(404, "browser.tab_not_found", `no tab ${i}; there are ${pages().length} (numbered from 0)`);
      return page;
    };
    // The route's body names the route's action `action`, so the tabs' own travels as `tab_action`.
    switch (args.tab_action) {
      case "list":
        break;
      case "new": {
        const page = await context.newPage();
        await page.setViewportSize(VIEWPORT);
        this.#current = page;
        if (args.url !== undefined) await goto(page, webUrl(args.url), this.#options.navigationTimeoutMs ?? 30_000);
        break;
      }
      case "select": {
        if (index === undefined) throw bad("select needs index");
        this.#current = tab(index);
        await this.#current.bringToFront();
        break;
      }
      case "close": {
        const page = index === undefined ? await this.#page() : tab(index);
        await page.close();
        if (this.#current === page) this.#current = null;
        break;
      }
      default:
        throw bad("tab_action must be list, new, select or close");
    }
    const current = await this.#page();
    const lines = await Promise.all(
      pages().map(async (page, i) => `${i}: ${page === current ? "[current] " : ""}${(await page.title().catch(() => "")) || "(untitled)"} - ${page.url()}`),
    );
    return { text: `Tabs:\n${lines.join("\n")}` };
  }

  /** The element a ref (from the last snapshot) or a CSS selector names; 404 when there is none. */
  async #element(page: Page, args: Record<string, unknown>): Promise<{ locator: Locator; name: string }> {
    const { ref, selector } = args;
    if ((ref === undefined) === (selector === undefined)) throw bad("give either ref (from browser_snapshot) or selector");
    let locator: Locator;
    let name: string;
    if (ref !== undefined) {
      if (typeof ref !== "string" || !/^[a-z0-9]{1,32}$/i.test(ref)) throw bad("ref must be an element ref from the snapshot, such as e12");
      locator = page.locator(`aria-ref=${ref}`);
      name = `ref ${ref}`;
    } else {
      if (typeof selector !== "string" || selector.length === 0 || selector.length > 1000) throw bad("selector must be a CSS selector");
      locator = page.locator(selector).first();
      name = `selector ${JSON.stringify(selector)}`;
    }
    let count = 0;
    try {
      count = await locator.count();
    } catch (error) {
      if (selector !== undefined) throw bad(`selector ${JSON.stringify(selector)} is not valid: ${firstLine(error)}`);
    }
    if (count === 0) {
      throw new BrowserFailure(
        404,
        "browser.ref_not_found",
        `no element matches ${name} on ${page.url()}; take a new browser_snapshot and use one of its refs`,
      );
    }
    return { locator, name };
  }

  /** The current tab: the one selected or opened last, else the context's last page, else a new one. */
  async #page(): Promise<Page> {
    const context = await this.#context();
    if (this.#current && !this.#current.isClosed() && context.pages().includes(this.#current)) return this.#current;
    const page = context.pages().at(-1) ?? (await context.newPage());
    // A CDP-attached page keeps the window's size; the model always sees the same viewport.
    if (page.viewportSize()?.width !== VIEWPORT.width || page.viewportSize()?.height !== VIEWPORT.height) await page.setViewportSize(VIEWPORT);
    this.#current = page;
    return page;
  }

  async #context(): Promise<BrowserContext> {
    const browser = await this.#connect();
    const context = browser.contexts()[0];
    if (!context) throw new BrowserFailure(409, "browser.unavailable", "Chromium has no browser window open");
    return context;
  }

  #connect(): Promise<Browser> {
    if (!this.#browser) {
      const attempt = (async () => {
        const playwright = await loadPlaywright(this.#options.playwright);
        try {
          const browser = await playwright.chromium.connectOverCDP(this.#options.cdpUrl, { timeout: 10_000 });
          browser.on("disconnected", () => {
            if (this.#browser === attempt) this.#browser = null;
            this.#current = null;
          });
          return browser;
        } catch (error) {
          throw new BrowserFailure(409, "browser.unavailable", `the box's browser does not answer on ${this.#options.cdpUrl} (${firstLine(error)})`);
        }
      })();
      this.#browser = attempt;
      attempt.catch(() => {
        if (this.#browser === attempt) this.#browser = null;
      });
    }
    return this.#browser;
  }

  #actionTimeout(): number {
    return this.#options.actionTimeoutMs ?? 10_000;
  }
}

/** Loads playwright-core from a path, or from /opt/playwright's node_modules (the images' place). */
async function loadPlaywright(from: string | undefined): Promise<typeof import("playwright-core")> {
  let entry: string;
  try {
    const require = createRequire(join(from ?? "/opt/playwright", "package.json"));
    entry = from ? require.resolve(from) : require.resolve("playwright-core");
  } catch {
    throw new BrowserFailure(409, "browser.unavailable", `playwright-core is not installed in this box (${from ?? "/opt/playwright"})`);
  }
  const module = (await import(pathToFileURL(entry).href)) as typeof import("playwright-core") & { default?: typeof import("playwright-core") };
  return module.chromium ? module : (module.default as typeof import("playwright-core"));
}

let shared: BrowserDriver | null = null;

/** The route: the driver is made on first use with the guest's settings (driverOptions). */
export async function browserRoute(req: IncomingMessage, res: ServerResponse, options: BrowserDriverOptions = driverOptions({})): Promise<void> {
  const read = await readJson(req, res, 64 * 1024, {
    tooLarge: "browser.too_large",
    tooLargeMessage: "browser body is over 64 KiB",
    invalid: "browser.invalid_args",
  });
  if (!read) return;
  const { body } = read;
  shared ??= new BrowserDriver(options);
  try {
    sendJson(res, 200, await shared.run(body));
  } catch (error) {
    if (error instanceof BrowserFailure) return sendError(res, error.status, error.code, error.message);
    if (/has been closed|disconnected/i.test(messageOf(error))) {
      await shared.close();
      return sendError(res, 409, "browser.unavailable", `the browser went away during the action (${firstLine(error)}); try again`);
    }
    sendError(res, 500, "browser.error", firstLine(error));
  }
}

/** Lets go of Chromium (before it is stopped, e.g. for a home archive); the next action reconnects. */
export async function disconnectBrowser(): Promise<void> {
  await shared?.close();
}

/** The driver's settings from the guest's environment. */
export function driverOptions(env: Readonly<Record<string, string | undefined>>): BrowserDriverOptions {
  const nav = Number(env.GUEST_BROWSER_NAV_TIMEOUT_MS);
  return {
    cdpUrl: env.GUEST_CDP_URL || "http://127.0.0.1:9222",
    ...(env.GUEST_PLAYWRIGHT ? { playwright: env.GUEST_PLAYWRIGHT } : {}),
    ...(Number.isInteger(nav) && nav > 0 ? { navigationTimeoutMs: nav } : {}),
  };
}
