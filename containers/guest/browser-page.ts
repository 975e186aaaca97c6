/**
 * What the browser driver does to a page, apart from holding it: the web addresses it may
 * open, navigation and actions with their failures as the route answers them, and the page
 * as the model reads it.
 */
import type { Page } from "playwright-core";

/** A snapshot longer than this is cut: the tool output pipeline caps results at 64 KiB anyway. */
const SNAPSHOT_MAX_CHARS = 48_000;

/** A browser failure the route answers as `{error:{code,message}}` with `status`. */
export class BrowserFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const bad = (message: string) => new BrowserFailure(400, "browser.invalid_args", message);

/** Runs in the page: scrolls by (dx, dy) and reports where the view is. */
export function scrollPage([dx, dy]: [number, number]): { x: number; y: number; width: number; height: number } {
  // The guest compiles without the DOM library; these are the page's own globals.
  const page = globalThis as unknown as {
    scrollBy(x: number, y: number): void;
    scrollX: number;
    scrollY: number;
    document: { scrollingElement: { scrollWidth: number; scrollHeight: number } | null; documentElement: { scrollWidth: number; scrollHeight: number } };
  };
  page.scrollBy(dx, dy);
  const root = page.document.scrollingElement ?? page.document.documentElement;
  return { x: Math.round(page.scrollX), y: Math.round(page.scrollY), width: root.scrollWidth, height: root.scrollHeight };
}

/** http(s) and about:blank only: the box's files are the shell's business, not the browser's. */
export function webUrl(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 8192) throw bad("url must be an http or https address");
  if (value === "about:blank") return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad(`url ${JSON.stringify(value)} is not an absolute address (include https://)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw bad(`url must be http or https, not ${url.protocol}`);
  return url.href;
}

export async function goto(page: Page, url: string, timeout: number): Promise<void> {
  try {
    await page.goto(url, { timeout, waitUntil: "domcontentloaded" });
  } catch (error) {
    if ((error as Error).name === "TimeoutError") throw new BrowserFailure(504, "browser.navigation_timeout", `${url} did not load within ${timeout / 1000} s`);
    throw new BrowserFailure(502, "browser.navigation_failed", `${url} could not be loaded: ${firstLine(error)}`);
  }
}

/** Runs a Playwright action, turning its failure (hidden, disabled, covered) into a 422 the model can act on. */
export async function act(action: () => Promise<void>, what: string): Promise<void> {
  try {
    await action();
  } catch (error) {
    throw new BrowserFailure(422, "browser.action_failed", `could not ${what}: ${firstLine(error)}`);
  }
}

/** Gives a click's navigation or script a moment to start and the DOM to load, without waiting for the network to idle. */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState("domcontentloaded", { timeout: 5000 }).catch(() => {});
}

/** The page as the model reads it: address, title, then the accessibility snapshot with refs. */
export async function report(page: Page): Promise<string> {
  let snapshot = await page.ariaSnapshot({ mode: "ai", timeout: 10_000 }).catch((error: unknown) => `(no snapshot: ${firstLine(error)})`);
  if (snapshot.length > SNAPSHOT_MAX_CHARS)
    snapshot = `${snapshot.slice(0, SNAPSHOT_MAX_CHARS)}\n[snapshot cut at ${SNAPSHOT_MAX_CHARS} characters; scroll or navigate to see more]`;
  return `URL: ${page.url()}\nTitle: ${await page.title().catch(() => "")}\n\n${snapshot}`;
}

export function firstLine(error: unknown): string {
  return messageOf(error).split("\n")[0]!.slice(0, 300);
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
