import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, launchChromium, type Page, screenshot, signIn, until } from "./browser";

/** The secrets page: create, grant, revoke, edit and delete, never showing a value after it is saved. */
describe("ISSUE-12: secrets in the console", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");
  const suffix = Math.random().toString(36).slice(2, 8).toUpperCase();
  const name = `CONSOLE_TOKEN_${suffix}`;
  const value = `console-secret-value-${suffix}`;

  beforeAll(async () => {
    chromium = await launchChromium();
    page = await chromium.context.newPage();
  });
  afterAll(async () => {
    await chromium?.close();
  });

  it("OP-UI-8 / OP-SEC-3: creates a secret, refuses a bad or reserved name beside its field, grants and revokes it, and never shows the value again", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: `Secrets guild ${suffix}` } })).json;
    await signIn(page, apiUrl, inject("token"));
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Secrets" }).click();
    await page.getByRole("heading", { name: "Secrets", level: 1 }).waitFor();

    const form = page.locator("form[aria-labelledby=new-secret]");
    await form.getByLabel("Name").fill("not a name");
    await form.getByLabel("Value").fill(value);
    await form.getByRole("button", { name: "Create secret" }).click();
    const nameError = form.locator('[data-field="name"] .field-error');
    await nameError.waitFor();
    expect(await nameError.textContent()).toContain("environment variable");
    // A name the box reads for itself is refused beside the field too (OP-SEC-3).
    await form.getByLabel("Name").fill("GUEST_HOME");
    await form.getByRole("button", { name: "Create secret" }).click();
    await until(async () => ((await nameError.textContent()) ?? "").includes("is reserved"), "the reserved name is refused");

    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Description").fill("Used by the console test");
    await form.getByRole("button", { name: "Create secret" }).click();
    const card = page.locator(`[data-secret="${name}"]`);
    await card.waitFor();
    expect(await form.getByLabel("Value").inputValue()).toBe("");
    expect(await card.textContent()).toContain("Value hidden");

    await card.getByLabel("Grant to").selectOption({ label: `Guild ${guild.name}` });
    await card.getByRole("button", { name: "Grant" }).click();
    const grants = card.getByRole("list", { name: `Grants of ${name}` });
    await grants.getByText(`Guild ${guild.name}`).waitFor();
    await screenshot(page, "secrets-granted");

    await card.getByRole("button", { name: "Edit…" }).click();
    const edit = card.getByRole("form", { name: `Edit ${name}` });
    await edit.getByLabel("Description").fill("Rotated by the console test");
    await edit.getByLabel("New value").fill(`${value}-rotated`);
    await edit.getByRole("button", { name: "Save" }).click();
    await card.getByText("Rotated by the console test").waitFor();
    expect(await card.getByRole("form", { name: `Edit ${name}` }).count()).toBe(0);

    await grants.getByRole("button", { name: "Revoke" }).click();
    await until(async () => (await grants.locator("li").count()) === 0, "the grant is revoked");
    const stored = (await api("GET", "/api/secrets")).json.data.find((s: { name: string }) => s.name === name);
    expect(stored).toMatchObject({ description: "Rotated by the console test", grants: [] });

    // Neither value is anywhere on the page, before or after a reload.
    expect(await page.content()).not.toContain(value);
    await page.reload();
    await card.waitFor();
    expect(await page.content()).not.toContain(value);

    await card.getByRole("button", { name: "Delete…" }).click();
    await card
      .getByRole("group", { name: `Confirm deleting secret ${name}` })
      .getByRole("button", { name: "Delete" })
      .click();
    await until(async () => (await card.count()) === 0, "the secret is gone");
    expect((await api("GET", `/api/secrets/${stored.id}`)).status).toBe(404);
    await api("DELETE", `/api/guilds/${guild.id}`);
  });
});
