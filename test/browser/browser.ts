import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from "playwright-core";
import { ROOT } from "../../scripts/stack/wrangler";

/** Debian's Chromium (`apt-get install chromium`); playwright-core downloads no browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/** The flags Chromium needs here: root without a sandbox, and no calls to Google's services. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const SCREENSHOTS = join(ROOT, "test-artifacts", "screenshots");

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium with a fresh profile: a persistent context in a new
 * temporary user-data-dir, 1280x720, so every test file starts signed out.
 */
export async function launchChromium(): Promise<Chromium> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  const profile = mkdtempSync(join(tmpdir(), "guilds-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 720 },
    timeout: 60_000,
  });
  // What a locator waits for is the console catching up with the platform: at a load of 8,
  // at the suite's start (every workerd loading its modules), a first reply took over 15 s.
  context.setDefaultTimeout(30_000);
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot of the page (the 1280x720 viewport, or all of it) under test-artifacts/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: options.fullPage ?? false });
}

/** Chromium with one page signed in to the console: where most browser test files start. */
export async function signedInPage(apiUrl: string, token: string): Promise<{ chromium: Chromium; page: Page }> {
  const chromium = await launchChromium();
  const page = await chromium.context.newPage();
  await signIn(page, apiUrl, token);
  return { chromium, page };
}

/** Signs in on the sign-in page with the token. */
export async function signIn(page: Page, apiUrl: string, token: string): Promise<void> {
  await page.goto(`${apiUrl}/guilds`);
  await page.getByLabel("Operator token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Guilds", level: 1, exact: true }).waitFor();
}

/** Queues replies of the mock model for one model name (each test agent has its own). */
export async function scriptModel(mockUrl: string, model: string, replies: unknown[]): Promise<void> {
  const response = await fetch(`${mockUrl}/__script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, replies }),
  });
  if (!response.ok) throw new Error(`mock script refused: ${response.status} ${await response.text()}`);
}

/** Polls `check` until it holds (Playwright's auto-waiting assertions are not in playwright-core). */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export type { Browser, BrowserContext, Locator, Page };
