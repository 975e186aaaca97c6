import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createOrganisation } from "../../core/db/organisations";
import { withDatabase } from "../../scripts/stack/operator";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, scriptModel, signedInPage, signIn, until } from "./browser";

/**
 * The Usage page's platform-wide section (UI-010, decision 0021): the local stack makes its
 * own organisation the platform's operator; another organisation's page has no such section.
 */
describe("console: the platform's usage", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");
  const model = `mock-model-platform-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    // A priced reply of the operator's own ($1 of input on mock-model), so the figures are not empty.
    const guild = (await api("POST", "/api/guilds", { body: { name: "Platform ledger" } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Meter", model } })).json;
    await scriptModel(inject("mockModelUrl"), model, [{ content: "priced", usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } }]);
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "spend" } })).json;
    await until(
      async () => (await api("GET", `/api/runs/${run.id}/messages`)).json.data.some((r: { role: string }) => r.role === "assistant"),
      "the priced reply is stored",
      30_000,
    );
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
  }, 120_000);
  afterAll(async () => {
    await chromium?.close();
  });

  /** A figure of the page's counters line, e.g. "Model calls", as a number. */
  const figure = async (card: string, term: string) =>
    Number(
      (
        await page
          .getByTestId("platform-usage")
          .locator("section.card", { has: page.getByRole("heading", { name: card }) })
          .locator("div", { has: page.locator("dt", { hasText: term }) })
          .locator("dd")
          .textContent()
      )?.replace(/,/g, ""),
    );

  it("UI-010: the platform's operator sees the whole platform's counters, all time and this month, as the API gives them", async () => {
    const before = (await api("GET", "/api/platform/usage")).json;
    expect(Number(before.totals.cost_usd)).toBeGreaterThanOrEqual(1);
    expect((await api("GET", "/api/organisation")).json.platform_operator).toBe(true);

    await page.goto(`${apiUrl}/usage`);
    const section = page.getByTestId("platform-usage");
    await section.getByRole("heading", { name: "Whole platform" }).waitFor();
    const cost = section.getByTestId("platform-cost");
    await cost.waitFor();
    const after = (await api("GET", "/api/platform/usage")).json;
    // Other files' replies may land meanwhile: what the page shows lies between the two reads.
    const shown = Number((await cost.textContent())!.replace(/[$,]/g, ""));
    expect(shown).toBeGreaterThanOrEqual(Math.floor(Number(before.totals.cost_usd) * 100) / 100);
    expect(shown).toBeLessThanOrEqual(Math.ceil(Number(after.totals.cost_usd) * 100) / 100);
    const calls = await figure("All time", "Model calls");
    expect(calls).toBeGreaterThanOrEqual(before.totals.calls);
    expect(calls).toBeLessThanOrEqual(after.totals.calls);
    const input = await figure("All time", "Input tokens");
    expect(input).toBeGreaterThanOrEqual(Math.max(before.totals.input_tokens, 1_000_000));
    expect(input).toBeLessThanOrEqual(after.totals.input_tokens);

    await section.getByRole("heading", { name: `This month (${after.month.month})` }).waitFor();
    const monthCalls = await figure(`This month (${after.month.month})`, "Model calls");
    expect(monthCalls).toBeGreaterThanOrEqual(before.month.calls);
    expect(monthCalls).toBeLessThanOrEqual(after.month.calls);
    expect(Number((await section.getByTestId("platform-month-cost").textContent())!.replace(/[$,]/g, ""))).toBeGreaterThanOrEqual(1);
    await screenshot(page, "42-usage-platform", { fullPage: true });
  });

  it("UI-010: another organisation's Usage page has no platform section, and the API refuses it the figures", async () => {
    const { token } = await withDatabase(inject("stackDatabaseUrl"), (db) => createOrganisation(db, "Tenant only"));
    const refused = await api("GET", "/api/platform/usage", { token });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe("platform.forbidden");
    const other = await chromium.context.newPage();
    try {
      // The context's session storage is per page: this page signs in as the other organisation.
      await signIn(other, apiUrl, token);
      await other.goto(`${apiUrl}/usage`);
      await other.getByTestId("org-cost").waitFor();
      expect(await other.getByTestId("platform-usage").count()).toBe(0);
      expect(await other.getByRole("heading", { name: "Whole platform" }).count()).toBe(0);
    } finally {
      await other.close();
    }
  });
});
