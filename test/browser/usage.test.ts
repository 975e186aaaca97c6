import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createOrganisation } from "../../core/db/organisations";
import { addDays, utcDay } from "../../core/shared/date-range";
import { withDatabase } from "../../scripts/stack/operator";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, scriptModel, signedInPage, until } from "./browser";

/**
 * The Usage page's daily chart against the API, in an organisation of its own so its
 * figures are only this file's runs: $1.50 today and $0.50 three days ago (UTC).
 */
describe("console: usage by day", () => {
  let chromium: Chromium;
  let page: Page;
  let token: string;
  let agent: { id: string };
  // Its own model name, so no other test takes the replies scripted for it.
  const model = `mock-model-daily-${Math.random().toString(36).slice(2, 8)}`;
  const apiUrl = inject("apiUrl");
  const today = utcDay(new Date());
  const threeDaysAgo = addDays(today, -3);
  const as = (method: string, path: string, body?: unknown) => api(method, path, { token, ...(body === undefined ? {} : { body }) });

  /** A run of the agent with one reply priced as given (mock-model: input $1, output $2 per million tokens). */
  async function priced(prompt: number, completion: number): Promise<string> {
    await scriptModel(inject("mockModelUrl"), model, [{ content: "priced", usage: { prompt_tokens: prompt, completion_tokens: completion } }]);
    const run = (await as("POST", `/api/agents/${agent.id}/runs`, { message: "spend" })).json;
    await until(
      async () =>
        (await as("GET", `/api/runs/${run.id}`)).json.generating === false &&
        (await as("GET", `/api/runs/${run.id}/messages`)).json.data.some((r: { role: string }) => r.role === "assistant"),
      "the priced reply is stored",
      30_000,
    );
    return run.id;
  }

  /** What the page's elements offer the callbacks below (they run in the page, not in Node). */
  type Drawn = { getAttribute(name: string): string | null };

  /** The chart's bars as drawn: day and cost of each. */
  const bars = () =>
    page
      .locator('[data-testid="daily-chart"] svg rect.chart-bar')
      .evaluateAll((rects: Drawn[]) =>
        rects.map((r) => ({ date: r.getAttribute("data-date"), cost: r.getAttribute("data-cost"), height: Number(r.getAttribute("height")) })),
      );
  const caption = (from: string, to: string) => page.locator('[data-testid="daily-chart"] figcaption', { hasText: `${from} to ${to}` });
  const daily = async (from: string, to: string, scope = "scope=org") => (await as("GET", `/api/usage/daily?${scope}&from=${from}&to=${to}`)).json;

  beforeAll(async () => {
    ({ token } = await withDatabase(inject("stackDatabaseUrl"), (db) => createOrganisation(db, "Daily usage")));
    const guild = (await as("POST", "/api/guilds", { name: "Ledger" })).json;
    agent = (await as("POST", `/api/guilds/${guild.id}/agents`, { name: "Counter", model })).json;
    const earlier = await priced(500_000, 0);
    const client = new pg.Client({ connectionString: inject("stackDatabaseUrl") });
    await client.connect();
    try {
      // Days cannot pass in a test: the earlier reply is moved three days back.
      await client.query(`update messages set created_at = created_at - interval '3 days' where run_id = $1 and role = 'assistant'`, [earlier]);
    } finally {
      await client.end();
    }
    await priced(1_000_000, 250_000);
    ({ chromium, page } = await signedInPage(apiUrl, token));
  }, 120_000);
  afterAll(async () => {
    await chromium?.close();
  });

  it("USAGE-UI: the chart draws every day of the range with the API's figures, after runs of a known cost", async () => {
    await page.goto(`${apiUrl}/usage`);
    await page.getByRole("heading", { name: "Usage by day" }).waitFor();
    await page.getByRole("group", { name: "Range presets" }).getByRole("button", { name: "7 days" }).click();
    const from = addDays(today, -6);
    await caption(from, today).waitFor();
    expect(await page.getByRole("button", { name: "7 days" }).getAttribute("aria-pressed")).toBe("true");

    const fromApi = await daily(from, today);
    const drawn = await bars();
    expect(drawn.map((b) => [b.date, b.cost])).toEqual(fromApi.data.map((d: { date: string; cost_usd: string }) => [d.date, d.cost_usd]));
    expect(drawn).toHaveLength(7);
    const byDay = Object.fromEntries(drawn.map((b) => [b.date, b]));
    expect(byDay[today]).toMatchObject({ cost: "1.500000" });
    expect(byDay[threeDaysAgo]).toMatchObject({ cost: "0.500000" });
    // Heights follow the values: today three times the earlier day, the other days empty.
    expect(byDay[today]!.height / byDay[threeDaysAgo]!.height).toBeCloseTo(3, 1);
    expect(drawn.filter((b) => b.date !== today && b.date !== threeDaysAgo).every((b) => b.height === 0)).toBe(true);

    // The table under the chart reads the same figures.
    const row = async (date: string) => page.getByTestId("daily-usage").locator(`tr[data-date="${date}"] td`).allTextContents();
    expect((await row(today)).slice(0, 4)).toEqual(["$1.50", "1", "1,000,000", "250,000"]);
    expect((await row(threeDaysAgo)).slice(0, 2)).toEqual(["$0.5000", "1"]);
    expect((await row(addDays(today, -1))).slice(0, 2)).toEqual(["$0.00", "0"]);
    expect(await page.getByRole("img", { name: `Cost per day, ${from} to ${today} (UTC)` }).count()).toBe(1);

    // The summary table of the same range: the agent, its guild, both replies.
    const agentRow = page.getByTestId("agent-usage").locator("tr", { hasText: "Counter" });
    await agentRow.filter({ hasText: "$2.00" }).waitFor();
    expect((await agentRow.locator("td").allTextContents()).slice(0, 3)).toEqual(["Counter", "$2.00", "2"]);
    await page.getByTestId("guild-usage").locator("tr", { hasText: "Ledger" }).filter({ hasText: "$2.00" }).waitFor();
    await screenshot(page, "40-usage-daily", { fullPage: true });
  });

  it("USAGE-UI: changing the date range or the scope changes the series; a bad range is refused beside its field", async () => {
    await page.goto(`${apiUrl}/usage`);
    await page.getByRole("button", { name: "30 days" }).click();
    await caption(addDays(today, -29), today).waitFor();
    expect(await bars()).toHaveLength(30);
    expect(await page.getByTestId("daily-usage").locator("tbody tr").count()).toBe(30);

    await page.getByLabel("From (UTC)").fill(threeDaysAgo);
    await page.getByLabel("To (UTC)").fill(addDays(today, -1));
    await page.getByRole("button", { name: "Show range" }).click();
    await caption(threeDaysAgo, addDays(today, -1)).waitFor();
    expect((await bars()).map((b) => [b.date, b.cost])).toEqual([
      [threeDaysAgo, "0.500000"],
      [addDays(today, -2), "0.000000"],
      [addDays(today, -1), "0.000000"],
    ]);
    await page.getByTestId("agent-usage").locator("tr", { hasText: "Counter" }).filter({ hasText: "$0.5000" }).waitFor();
    expect(await page.getByRole("button", { name: "30 days" }).getAttribute("aria-pressed")).toBe("false");

    await page.getByLabel("From (UTC)").fill(today);
    await page.getByLabel("To (UTC)").fill(threeDaysAgo);
    await page.getByRole("button", { name: "Show range" }).click();
    expect(await page.locator('[data-field="from"] .field-error').textContent()).toContain("after to");
    expect(await bars()).toHaveLength(3);

    await page.getByLabel("To (UTC)").fill(today);
    await page.getByRole("button", { name: "Show range" }).click();
    await caption(today, today).waitFor();
    await page.getByLabel("Chart for").selectOption({ label: "Agent: Counter (Ledger)" });
    await until(
      async () => (await bars()).length === 1 && (await page.locator(".month-to-date").count()) === 0,
      "the agent's series without the organisation's month-to-date panel",
    );
    expect((await bars())[0]).toMatchObject({ date: today, cost: "1.500000" });
  });

  it("USAGE-UI: the range follows the last click: a late answer for the range before it never replaces the newer one", async () => {
    // The page's first loads (this month's series and tables) are held back until the
    // "30 days" answers have landed, then let through: as under load, they arrive last.
    const usageData = (url: URL) => url.pathname === "/api/usage/daily" || url.pathname === "/api/usage/summary";
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held: Promise<void>[] = [];
    await page.route(usageData, async (route) => {
      if (held.length >= 2) return route.continue();
      let resolve!: () => void;
      held.push(
        new Promise<void>((r) => {
          resolve = r;
        }),
      );
      await gate;
      // The page may have given up on the request (aborted): then there is nothing to answer.
      await route
        .fetch()
        .then((response) => route.fulfill({ response }))
        .catch(() => {})
        .finally(resolve);
    });
    try {
      await page.goto(`${apiUrl}/usage`);
      await until(async () => held.length === 2, "the first range's loads are held back");
      await page.getByRole("button", { name: "30 days" }).click();
      // The choice shows at once, before any answer.
      expect(await page.getByRole("button", { name: "30 days" }).getAttribute("aria-pressed")).toBe("true");
      // On the 30th of a 30-day month both presets are one range: nothing new is asked for.
      if (addDays(today, -29) !== `${today.slice(0, 7)}-01`) await caption(addDays(today, -29), today).waitFor();

      release();
      await Promise.all(held);
      // Time for a late answer to be drawn, were it taken.
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500)));
      expect(await caption(addDays(today, -29), today).count()).toBe(1);
      expect(await bars()).toHaveLength(30);
      expect(await page.getByRole("button", { name: "30 days" }).getAttribute("aria-pressed")).toBe("true");
      expect(await page.getByRole("button", { name: "This month" }).getAttribute("aria-pressed")).toBe("false");
      expect(await page.getByTestId("range-cost").textContent()).toBe("$2.00");
      expect(await page.locator("#by-scope").textContent()).toBe(`By guild and agent, ${addDays(today, -29)} to ${today}`);
    } finally {
      release();
      await page.unroute(usageData);
    }
  });

  it("USAGE-UI / USAGE-005: with a monthly spend limit the month-to-date spend is drawn against it as a labelled line; without one there is none", async () => {
    await page.goto(`${apiUrl}/usage`);
    await caption(`${today.slice(0, 7)}-01`, today).waitFor();
    // Attached, not "visible": on the 1st of a month the line is one level mark, whose box has
    // no height (its stroke draws it), which Playwright counts as hidden.
    await page.locator(".month-to-date polyline").first().waitFor({ state: "attached" });
    expect(await page.getByTestId("spend-limit-line").count()).toBe(0);
    expect(await page.locator("#daily-chart-desc").textContent()).toContain("no monthly limit is set");

    await page.getByLabel("Monthly spend limit (USD, empty: none)").fill("5");
    await page.getByRole("button", { name: "Save limit" }).click();
    const limitLine = page.getByTestId("spend-limit-line");
    await limitLine.waitFor();
    expect(await limitLine.textContent()).toBe("Monthly limit $5.00");
    expect(await page.locator("#daily-chart-desc").textContent()).toContain("against the monthly limit of $5.00");
    // The month-to-date line (at most $2.00) stays below the $5.00 line: a smaller y is higher.
    const limitY = Number(await limitLine.locator("line").getAttribute("y1"));
    const highest = Math.min(
      ...(await page
        .locator(".month-to-date polyline")
        .evaluateAll((lines: Drawn[]) => lines.flatMap((l) => (l.getAttribute("points") ?? "").split(" ").map((p: string) => Number(p.split(",")[1]))))),
    );
    expect(highest).toBeGreaterThan(limitY);
    const monthToDate = (await daily(today, today)).data[0].month_to_date_cost_usd;
    expect(await page.getByTestId("daily-usage").locator(`tr[data-date="${today}"] td`).last().textContent()).toBe(`$${Number(monthToDate).toFixed(2)}`);
    await screenshot(page, "41-usage-limit-line", { fullPage: true });

    await page.getByLabel("Monthly spend limit (USD, empty: none)").fill("");
    await page.getByRole("button", { name: "Save limit" }).click();
    await limitLine.waitFor({ state: "detached" });
  });
});
