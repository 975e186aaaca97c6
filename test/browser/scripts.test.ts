import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Locator, type Page, screenshot, scriptModel, signedInPage, until } from "./browser";

const FETCH_PRICES = `import json
import sys

def main(args: dict) -> dict:
    """Prices of the symbols asked for."""
    symbols = args.get("symbols", [])
    return {s: 1.0 for s in symbols}  # a fixed price

print(json.dumps(main(json.load(sys.stdin))))
`;
/** A computed style property of the element (of its pseudo-element when named), as the browser draws it. */
const style = (locator: Locator, property: string, pseudo?: string) =>
  locator.evaluate((e, [p, el]) => e.ownerDocument.defaultView!.getComputedStyle(e, el).getPropertyValue(p), [property, pseudo ?? null] as const);

const PRICE_PARAMETERS = { type: "object", properties: { symbols: { type: "array", items: { type: "string" } } }, required: ["symbols"] };

/** State › Scripts: the cards, the form, History, the cap, Remove all, the chat chip and the author's run link. */
describe("operator console: the agent's Scripts", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");
  const suffix = Math.random().toString(36).slice(2, 8);
  const model = `mock-model-s${suffix}`;
  let agent: { id: string; name: string };
  let plain: { id: string; name: string };
  const card = (name: string) => page.locator(`article[data-script="${name}"]`);
  const scripts = async (agentId: string) => (await api("GET", `/api/agents/${agentId}/scripts`)).json.data as Array<Record<string, any>>;
  const addScript = (agentId: string, body: Record<string, unknown>) => api("POST", `/api/agents/${agentId}/scripts`, { body });
  const tabs = () => page.getByRole("navigation", { name: "Agent pages" });

  beforeAll(async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: `Scripts ${suffix}` } })).json;
    agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Scripter ${suffix}`, model, max_scripts: 3 } })).json;
    plain = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Plain ${suffix}`, scripting: false } })).json;
    expect(
      (await addScript(agent.id, { name: "fetch_prices", description: "Prices of stock symbols.", source: FETCH_PRICES, parameters: PRICE_PARAMETERS })).status,
    ).toBe(201);
    expect((await addScript(agent.id, { name: "greet", description: "Says hello.", source: 'print("hello")\n' })).status).toBe(201);
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
  });
  afterAll(async () => {
    await chromium?.close();
  });

  it("UI-016, UI-027: the Scripts tab shows while scripting is on; on a scripting-off agent it is hidden and its address says This agent has no scripting", async () => {
    await page.goto(`${apiUrl}/agents/${agent.id}`);
    await tabs().getByRole("link", { name: "Scripts" }).click();
    await page.getByRole("heading", { name: `Scripts of Scripter ${suffix}`, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/agents/${agent.id}/scripts`);
    expect(await tabs().getByRole("link", { name: "Scripts" }).getAttribute("aria-current")).toBe("page");

    await page.goto(`${apiUrl}/agents/${plain.id}`);
    await page.getByRole("heading", { name: `Plain ${suffix}`, level: 1 }).waitFor();
    expect(await tabs().getByRole("link", { name: "Settings" }).count()).toBe(1);
    expect(await tabs().getByRole("link", { name: "Scripts" }).count()).toBe(0);
    await page.goto(`${apiUrl}/agents/${plain.id}/scripts`);
    await page.getByTestId("no-scripting").waitFor();
    expect(await page.getByTestId("no-scripting").textContent()).toContain("This agent has no scripting");
    expect(await page.locator("article.script-card").count()).toBe(0);
  });

  it("UI-017, UI-018, UI-019, UI-020, UI-021: one card per script with file name, version, author, description, numbered Python highlighted in Solarized dark, and a footer naming the sandbox path and language", async () => {
    await page.goto(`${apiUrl}/agents/${agent.id}/scripts`);
    await card("fetch_prices").waitFor();
    expect(await page.locator("article.script-card").count()).toBe(2);
    const [listed] = (await scripts(agent.id)).filter((s) => s.name === "fetch_prices");
    const c = card("fetch_prices");
    expect(await c.getByRole("heading", { level: 3 }).textContent()).toBe("fetch_prices.py");
    expect(await c.getByTestId("script-version").textContent()).toBe("v1");
    expect(listed!.author.kind).toBe("person");
    expect(await c.locator(".script-author").textContent()).toBe(`by ${listed!.author.name}`);
    expect(await c.locator(".script-description").textContent()).toBe("Prices of stock symbols.");

    const source = c.getByRole("group", { name: "Source of fetch_prices.py" });
    await until(async () => (await source.getAttribute("data-highlighted")) === "true", "the source is highlighted");
    const numbers = await source.locator(".line").evaluateAll((els) => els.map((e) => e.getAttribute("data-line")));
    expect(numbers).toEqual(
      FETCH_PRICES.trimEnd()
        .split("\n")
        .map((_, i) => String(i + 1)),
    );
    // The numbers are drawn beside each line, and the lines read as the source.
    expect(await style(source.locator(".line").nth(2), "content", "::before")).toBe('"3"');
    expect(await source.textContent()).toContain('"""Prices of the symbols asked for."""');
    const colour = (selector: string) => style(source.locator(selector).first(), "color");
    expect(await style(source, "background-color")).toBe("rgb(0, 43, 54)"); // base03
    expect(await colour(".hljs-keyword")).toBe("rgb(133, 153, 0)"); // green
    expect(await colour(".hljs-string")).toBe("rgb(42, 161, 152)"); // cyan
    expect(await colour(".hljs-comment")).toBe("rgb(88, 110, 117)"); // base01
    expect(await source.locator(".hljs-title.function_").first().textContent()).toBe("main");

    expect(await c.getByTestId("script-footer").textContent()).toBe(`${listed!.display_path} · Python`);
    expect(listed!.display_path).toBe("/home/agent/scripts/fetch_prices.py");
    expect(await card("greet").getByTestId("script-footer").textContent()).toBe("/home/agent/scripts/greet.py · Python");
    await screenshot(page, "60-scripts-cards", { fullPage: true });
  });

  it("UI-022: Edit reopens the script in the form and saves a new version; History lists its changes; a script with parameters shows them on demand", async () => {
    await page.goto(`${apiUrl}/agents/${agent.id}/scripts`);
    const c = card("fetch_prices");
    await c.waitFor();
    // Parameters on demand; a script without any has no such button.
    expect(await card("greet").getByRole("button", { name: "Parameters of greet.py" }).count()).toBe(0);
    expect(await c.getByRole("group", { name: "Parameters of fetch_prices" }).count()).toBe(0);
    await c.getByRole("button", { name: "Parameters of fetch_prices.py" }).click();
    expect(JSON.parse((await c.getByRole("group", { name: "Parameters of fetch_prices" }).textContent())!)).toEqual(PRICE_PARAMETERS);

    await c.getByRole("button", { name: "Edit fetch_prices.py" }).click();
    const form = c.getByRole("form", { name: "Edit fetch_prices.py" });
    expect(await form.getByLabel("Name").inputValue()).toBe("fetch_prices");
    expect(await form.getByLabel("Name").getAttribute("readonly")).not.toBeNull();
    expect(await form.getByLabel("Description").inputValue()).toBe("Prices of stock symbols.");
    expect(await form.getByLabel("Source").inputValue()).toBe(FETCH_PRICES);
    expect(JSON.parse(await form.getByLabel("Parameters").inputValue())).toEqual(PRICE_PARAMETERS);
    await form.getByLabel("Description").fill("Prices of stock symbols, in USD.");
    await form.getByLabel("Source").fill(FETCH_PRICES.replace("1.0", "2.0"));
    await form.getByRole("button", { name: "Save script" }).click();
    await until(async () => (await c.getByTestId("script-version").textContent()) === "v2", "the card shows version 2");
    expect(await c.locator(".script-description").textContent()).toBe("Prices of stock symbols, in USD.");
    expect(await c.getByRole("group", { name: "Source of fetch_prices.py" }).textContent()).toContain("2.0");
    const stored = (await api("GET", `/api/agents/${agent.id}/scripts/fetch_prices`)).json;
    expect(stored).toMatchObject({ version: 2, description: "Prices of stock symbols, in USD.", parameters: PRICE_PARAMETERS });

    await c.getByRole("button", { name: "History of fetch_prices.py" }).click();
    const history = c.getByRole("region", { name: "History of fetch_prices.py" });
    await history.locator("li").nth(1).waitFor();
    expect(await history.locator("li").evaluateAll((els) => els.map((e) => e.getAttribute("data-version")))).toEqual(["2", "1"]);
    expect(await history.locator("li").nth(0).textContent()).toContain("Prices of stock symbols, in USD.");
    expect(await history.locator("li").nth(1).textContent()).toContain(`by ${stored.author.name}`);
    expect(await history.locator("li time").count()).toBe(2);
    await history.getByText("Source of v1").click();
    expect(await history.locator("li").nth(1).locator("pre").textContent()).toBe(FETCH_PRICES);
    await screenshot(page, "61-script-history", { fullPage: true });
  });

  it("UI-023: Add script asks for Name, Description, Source and Parameters; bad Parameters JSON is named before sending, the API's refusal beside its field; with parameters the script is also a tool", async () => {
    await page.goto(`${apiUrl}/agents/${agent.id}/scripts`);
    await page.getByRole("button", { name: "Add script" }).click();
    const form = page.getByRole("form", { name: "Add script" });
    // The form opens at its Name.
    await until(async () => (await page.evaluate("document.activeElement?.id")) === "script-new-name", "the name has focus");
    await form.getByLabel("Name").fill("Convert Units");
    await form.getByLabel("Description").fill("Converts between units.");
    await form.getByLabel("Source").fill("import json, sys\nprint(json.load(sys.stdin))\n");
    await form.getByLabel("Parameters").fill('{"type": "object", "properties": {');
    await form.getByRole("button", { name: "Create script" }).click();
    const paramsError = form.locator('[data-field="parameters"] .field-error');
    await paramsError.waitFor();
    expect(await paramsError.textContent()).toContain("Parameters are not valid JSON");
    expect(await form.getByLabel("Parameters").getAttribute("aria-invalid")).toBe("true");
    expect((await scripts(agent.id)).length).toBe(2);

    await form.getByLabel("Parameters").fill('{"type": "object", "properties": {"value": {"type": "number"}, "to": {"type": "string"}}}');
    await form.getByRole("button", { name: "Create script" }).click();
    const nameError = form.locator('[data-field="name"] .field-error');
    await nameError.waitFor();
    expect(await nameError.textContent()).toContain("lowercase");
    expect(await form.locator('[data-field="parameters"] .field-error').count()).toBe(0);
    await screenshot(page, "62-script-form-errors", { fullPage: true });
    expect((await scripts(agent.id)).length).toBe(2);

    await form.getByLabel("Name").fill("convert_units");
    await form.getByRole("button", { name: "Create script" }).click();
    await card("convert_units").waitFor();
    expect(await card("convert_units").locator(".script-tool").textContent()).toContain("Also a tool of its own");
    expect(await card("greet").locator(".script-tool").count()).toBe(0);
    const created = (await scripts(agent.id)).find((s) => s.name === "convert_units")!;
    expect(created).toMatchObject({ version: 1, description: "Converts between units.", parameters: { type: "object" } });
  });

  it("UI-024, UI-030: Add script is disabled once the agent has as many scripts as its cap; Max scripts in Settings raises the cap", async () => {
    await page.goto(`${apiUrl}/agents/${agent.id}/scripts`);
    await card("convert_units").waitFor();
    expect(await page.getByTestId("script-count").textContent()).toBe("3 of 3");
    expect(await page.getByRole("button", { name: "Add script" }).isDisabled()).toBe(true);
    expect(await page.getByTestId("script-cap").textContent()).toContain("as many scripts as its cap (3)");
    // A replace is not a new name: Edit still saves at the cap.
    await card("greet").getByRole("button", { name: "Edit greet.py" }).click();
    await card("greet").getByLabel("Source").fill('print("hello again")\n');
    await card("greet").getByRole("button", { name: "Save script" }).click();
    await until(async () => (await card("greet").getByTestId("script-version").textContent()) === "v2", "greet is at version 2");

    await tabs().getByRole("link", { name: "Settings" }).click();
    const max = page.getByLabel("Max scripts");
    expect(await max.inputValue()).toBe("3");
    await max.fill("4");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    expect((await api("GET", `/api/agents/${agent.id}`)).json.max_scripts).toBe(4);
    await tabs().getByRole("link", { name: "Scripts" }).click();
    await until(async () => (await page.getByTestId("script-count").textContent()) === "3 of 4", "the count shows the new cap");
    expect(await page.getByRole("button", { name: "Add script" }).isDisabled()).toBe(false);
  });

  it("UI-028: a script_create call in chat carries a chip naming the script; clicking it opens that script", async () => {
    await scriptModel(inject("mockModelUrl"), model, [
      { tool_calls: [{ name: "script_create", arguments: { name: "fetch_prices", description: "Prices of stock symbols.", source: FETCH_PRICES } }] },
      { content: "Saved the script." },
    ]);
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "Keep a price script" } })).json;
    await page.goto(`${apiUrl}/runs/${run.id}`);
    const chip = page.locator('[data-tool-call="script_create"] a.script-chip');
    await chip.waitFor();
    expect(await chip.textContent()).toBe("Script fetch_prices.py");
    // Other tool calls carry no chip.
    expect(await page.locator("a.script-chip").count()).toBe(1);
    await screenshot(page, "63-script-chip");
    await chip.click();
    await card("fetch_prices").waitFor();
    const url = new URL(page.url());
    expect(url.pathname + url.hash).toBe(`/agents/${agent.id}/scripts#script-fetch_prices`);
    expect(await card("fetch_prices").getAttribute("class")).toContain("targeted");
    expect(await card("greet").getAttribute("class")).not.toContain("targeted");
  });

  it("UI-018: a version written by a run names the run; its link opens the run at the step that wrote it", async () => {
    // fetch_prices was written by the previous test's run, through script_create.
    const written = (await api("GET", `/api/agents/${agent.id}/scripts/fetch_prices`)).json;
    expect(written.author.kind).toBe("run");
    const run = { id: written.author.run_id as string };
    const step = written.author.seq as number;
    const rows = (await api("GET", `/api/runs/${run.id}/messages`)).json.data as Array<{
      seq: number;
      role: string;
      payload: { tool_calls?: Array<{ function: { name: string } }> };
    }>;
    // The step is the assistant row whose call wrote it.
    expect(rows.find((r) => r.seq === step)?.payload.tool_calls?.[0]?.function.name).toBe("script_create");

    await page.goto(`${apiUrl}/agents/${agent.id}/scripts`);
    const author = card("fetch_prices").locator(".script-author");
    await author.waitFor();
    expect(await author.getAttribute("data-author-kind")).toBe("run");
    expect(await author.textContent()).toBe(`by run ${run.id.slice(0, 8)}, step ${step}`);
    await author.getByRole("link").click();
    const target = page.locator(`li#seq-${step}`);
    await target.waitFor();
    const url = new URL(page.url());
    expect(url.pathname + url.hash).toBe(`/runs/${run.id}#seq-${step}`);
    expect(await target.getAttribute("class")).toContain("row-target");
    expect(await target.getAttribute("aria-current")).toBe("location");
    expect(await page.locator(".row-target").count()).toBe(1);
    await screenshot(page, "64-run-at-script-step");
  });

  it("SCRIPT-040: a script written or deleted elsewhere shows in the open Scripts view, heard on the guild's event stream", async () => {
    await page.goto(`${apiUrl}/agents/${agent.id}/scripts`);
    await card("greet").waitFor();
    expect(await card("hourly").count()).toBe(0);
    expect((await addScript(agent.id, { name: "hourly", description: "Runs every hour.", source: "print(1)\n" })).status).toBe(201);
    await card("hourly").waitFor();
    expect(await page.getByTestId("script-count").textContent()).toBe("4 of 4");
    expect((await api("DELETE", `/api/agents/${agent.id}/scripts/hourly`)).status).toBe(204);
    await card("hourly").waitFor({ state: "detached" });
    expect(await page.getByTestId("script-count").textContent()).toBe("3 of 4");
  });

  it("UI-025, UI-026: a card's Delete and Remove all scripts ask first; the scripts leave the catalog; Settings offers Remove all too", async () => {
    await page.goto(`${apiUrl}/agents/${agent.id}/scripts`);
    await card("convert_units").getByRole("button", { name: "Delete…" }).click();
    await card("convert_units").getByRole("button", { name: "Delete", exact: true }).click();
    await card("convert_units").waitFor({ state: "detached" });
    expect((await api("GET", `/api/agents/${agent.id}/scripts/convert_units`)).status).toBe(404);

    await page.getByRole("button", { name: "Remove all scripts…" }).click();
    const confirm = page.getByRole("group", { name: `Confirm removing every script of Scripter ${suffix}` });
    expect(await confirm.textContent()).toContain(`Remove every script of Scripter ${suffix}?`);
    // Cancel keeps them.
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect((await scripts(agent.id)).length).toBe(2);
    await page.getByRole("button", { name: "Remove all scripts…" }).click();
    await page.getByRole("button", { name: "Remove", exact: true }).click();
    await page.getByText("No script yet.").waitFor();
    expect(await scripts(agent.id)).toEqual([]);
    expect(await page.getByTestId("script-count").textContent()).toBe("0 of 4");

    expect((await addScript(agent.id, { name: "greet", description: "Says hello.", source: 'print("hello")\n' })).status).toBe(201);
    await tabs().getByRole("link", { name: "Settings" }).click();
    await page.getByTestId("settings-script-count").waitFor();
    expect(await page.getByTestId("settings-script-count").textContent()).toContain("1 script of at most 4");
    await screenshot(page, "65-settings-scripts", { fullPage: true });
    await page.getByRole("button", { name: "Remove all scripts…" }).click();
    await page.getByRole("button", { name: "Remove", exact: true }).click();
    await until(async () => (await page.getByTestId("settings-script-count").textContent())!.startsWith("0 scripts"), "Settings shows no script");
    expect(await scripts(agent.id)).toEqual([]);
  });

  it("UI-029, UI-031: Scripting under Agent capabilities turns the Scripts view off and on; the create dialog offers Scripting, on by default, and Max scripts", async () => {
    await page.goto(`${apiUrl}/agents/${agent.id}/settings`);
    const capabilities = page.getByRole("group", { name: "Agent capabilities" });
    const scripting = capabilities.getByLabel("Scripting");
    expect(await scripting.isChecked()).toBe(true);
    await scripting.uncheck();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    expect((await api("GET", `/api/agents/${agent.id}`)).json.scripting).toBe(false);
    expect(await tabs().getByRole("link", { name: "Scripts" }).count()).toBe(0);
    await page.goto(`${apiUrl}/agents/${agent.id}/scripts`);
    await page.getByText("This agent has no scripting").waitFor();

    await page.goto(`${apiUrl}/agents/${agent.id}/settings`);
    await page.getByRole("group", { name: "Agent capabilities" }).getByLabel("Scripting").check();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    await tabs().getByRole("link", { name: "Scripts" }).waitFor();

    const guild = (await api("GET", `/api/agents/${agent.id}`)).json.guild_id;
    await page.goto(`${apiUrl}/guilds/${guild}`);
    await page.getByRole("button", { name: "New agent" }).click();
    const dialog = page.getByRole("region", { name: "New agent" });
    expect(await dialog.getByRole("group", { name: "Agent capabilities" }).getByLabel("Scripting").isChecked()).toBe(true);
    expect(await dialog.getByRole("group", { name: "Run limits" }).getByLabel("Max scripts").inputValue()).toBe("10");
  });
});
