import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, scriptModel, signedInPage, until } from "./browser";

describe("operator console: archiving a run", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");

  beforeAll(async () => ({ chromium, page } = await signedInPage(apiUrl, inject("token"))));
  afterAll(async () => chromium?.close());

  it("RUN-024: Archive on the run page archives it, History marks it archived, Unarchive takes it back", async () => {
    const model = `mock-model-${Math.random().toString(36).slice(2, 10)}`;
    const guild = (await api("POST", "/api/guilds", { body: { name: "Archive" } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Keeper", model } })).json;
    await scriptModel(inject("mockModelUrl"), model, [{ content: "Noted." }]);
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "Remember this" } })).json;
    await until(async () => (await api("GET", `/api/runs/${run.id}`)).json.generating === false, "the reply is written");

    await page.goto(`${apiUrl}/runs/${run.id}`);
    await page.locator("li[data-role=assistant]", { hasText: "Noted." }).waitFor();
    await page.getByRole("button", { name: "Archive", exact: true }).click();
    await page.getByTestId("run-archived").waitFor();
    expect((await api("GET", `/api/runs/${run.id}`)).json.archived).toBe(true);
    await screenshot(page, "archived-run");

    await page.getByRole("link", { name: "Keeper", exact: true }).click();
    const row = page.locator("table.history tbody tr").first();
    await row.waitFor();
    expect(await row.locator(".status-archived").textContent()).toBe("archived");

    await row.getByRole("link").click();
    await page.getByRole("button", { name: "Unarchive" }).click();
    await page.getByTestId("run-archived").waitFor({ state: "detached" });
    expect((await api("GET", `/api/runs/${run.id}`)).json.archived).toBe(false);
    await page.getByRole("button", { name: "Archive", exact: true }).waitFor();
  });
});
