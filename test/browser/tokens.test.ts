import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, launchChromium, type Page, screenshot, signIn, until } from "./browser";

/** The API tokens page, and the console working under its content security policy. */
describe("HARDEN-5: API tokens in the console", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");
  const suffix = Math.random().toString(36).slice(2, 8);
  const violations: string[] = [];

  beforeAll(async () => {
    chromium = await launchChromium();
    await chromium.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: apiUrl });
    page = await chromium.context.newPage();
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
  });
  afterAll(async () => {
    await chromium?.close();
  });

  it("HARDEN-5: the console's page and assets carry the security headers and run without a CSP violation", async () => {
    const answer = await page.goto(`${apiUrl}/guilds`);
    const headers = answer!.headers();
    expect(headers["content-security-policy"]).toContain("script-src 'self'");
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("no-referrer");
    const script = (await page.evaluate('document.querySelector("script[type=module]").src')) as string;
    expect((await fetch(script)).headers.get("x-content-type-options")).toBe("nosniff");
    await signIn(page, apiUrl, inject("token"));
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Usage" }).click();
    await page.getByTestId("org-cost").waitFor();
    expect(violations).toEqual([]);
  });

  it("HARDEN-5: lists every token, past the first page of 200", async () => {
    const first = `First ${suffix}`;
    const made = [(await api("POST", "/api/tokens", { body: { name: first } })).json.id as string];
    for (let batch = 0; batch < 8; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 25 }, (_, i) => api("POST", "/api/tokens", { body: { name: `Filler ${suffix} ${batch * 25 + i}` } })),
      );
      made.push(...answers.map((a) => a.json.id as string));
    }
    await page.goto(`${apiUrl}/tokens`);
    await page.locator(`tr[data-token="${first}"]`).waitFor();
    for (let at = 0; at < made.length; at += 25) {
      await Promise.all(made.slice(at, at + 25).map((id) => api("DELETE", `/api/tokens/${id}`)));
    }
  });

  it("HARDEN-5: creates a token and shows its secret once, refuses a past expiry beside its field, lists and revokes it", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API tokens" }).click();
    await page.getByRole("heading", { name: "API tokens", level: 1 }).waitFor();
    // The console's own token is listed and marked.
    await page.locator("[data-testid=tokens] .badge", { hasText: "this console" }).first().waitFor();

    const form = page.locator("form[aria-labelledby=new-token]");
    await form.getByLabel("Name").fill(`Old ${suffix}`);
    await form.getByLabel("Expires", { exact: true }).selectOption("date");
    await form.getByLabel("Expiry date").fill("2020-01-01");
    await form.getByRole("button", { name: "Create token" }).click();
    const dateError = form.locator('[data-field="expires_at"] .field-error');
    await dateError.waitFor();
    expect(await dateError.textContent()).toContain("must be in the future");

    const name = `CI ${suffix}`;
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Expires", { exact: true }).selectOption("30");
    await form.getByRole("button", { name: "Create token" }).click();
    const shown = page.getByTestId("new-token");
    await shown.waitFor();
    expect(await shown.textContent()).toContain("Copy it now: it is not shown again");
    const secret = await shown.getByLabel("New token").inputValue();
    expect(secret).toMatch(/^gld_/);
    await shown.getByRole("button", { name: "Copy" }).click();
    await shown.getByText("Copied to the clipboard.").waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(secret);
    await screenshot(page, "tokens-created");

    // The secret works, and once the page is left it is nowhere on it.
    expect((await api("GET", "/api/guilds", { token: secret })).status).toBe(200);
    const row = page.locator(`tr[data-token="${name}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain(secret.slice(0, 10));
    expect(await row.textContent()).toContain("Active");
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);

    await row.getByRole("button", { name: "Revoke…" }).click();
    await row
      .getByRole("group", { name: `Confirm revoking token ${name}` })
      .getByRole("button", { name: "Revoke" })
      .click();
    await until(async () => (await row.textContent())?.includes("Revoked") ?? false, "the token shows as revoked");
    expect((await api("GET", "/api/guilds", { token: secret })).status).toBe(401);
    // The console's own token still works.
    expect((await api("GET", "/api/guilds")).status).toBe(200);
    await screenshot(page, "tokens-revoked");
    expect(violations).toEqual([]);
  });
});
