import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, launchChromium, type Page, screenshot, signIn, until } from "./browser";

/** Sign-in, guilds and agents, settings with field errors, deletion, usage: the console's frame. */
describe("operator console: sign-in, guilds, agents, usage", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");
  const suffix = Math.random().toString(36).slice(2, 8);

  beforeAll(async () => {
    chromium = await launchChromium();
    page = await chromium.context.newPage();
  });
  afterAll(async () => {
    await chromium?.close();
  });

  it("signs in with a token: a wrong one is refused with a clear message, the right one opens the guilds; sign-out clears it", async () => {
    await page.goto(`${apiUrl}/guilds`);
    await page.getByLabel("Operator token").fill("gld_not-a-real-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    const refusal = page.locator("#token-error");
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain("That token was not accepted");
    await screenshot(page, "01-sign-in-wrong-token");

    await page.getByLabel("Operator token").fill(inject("token"));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Guilds", level: 1, exact: true }).waitFor();
    expect(await page.evaluate("Object.keys(sessionStorage)")).toEqual(["guilds.console.token"]);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Operator token").waitFor();
    expect(await page.evaluate("sessionStorage.length")).toBe(0);
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await signIn(page, apiUrl, inject("token"));
    await screenshot(page, "02-guilds");
  });

  it("creates a guild and an agent; a 422 names its field and the message shows beside that field", async () => {
    await page.goto(`${apiUrl}/guilds`);
    await page.getByLabel("Name").fill(`Research ${suffix}`);
    await page.getByLabel("Description").fill("Finds things out");
    await page.getByRole("button", { name: "Create guild" }).click();
    await page.getByRole("heading", { name: `Research ${suffix}`, level: 1 }).waitFor();

    await page.getByRole("button", { name: "New agent" }).click();
    const form = page.locator(".agent-form");
    await form.getByLabel("Name", { exact: true }).fill(`Scout ${suffix}`);
    await form.getByLabel("Model", { exact: true }).fill(`mock-model-${suffix}`);
    await form.getByLabel("Max steps per generation").fill("0");
    await form.getByLabel("Browser language").fill("not a language");
    await page.getByRole("button", { name: "Create agent" }).click();

    // Each message sits in its own field's box, linked to the input for screen readers.
    const steps = form.locator('[data-field="max_steps"] .field-error');
    await steps.waitFor();
    expect(await steps.textContent()).toMatch(/>=\s*1|too small/i);
    expect(await form.getByLabel("Max steps per generation").getAttribute("aria-invalid")).toBe("true");
    expect(await form.getByLabel("Max steps per generation").getAttribute("aria-describedby")).toContain("agent-new-max_steps-error");
    expect(await form.locator('[data-field="browser_language"] .field-error').textContent()).toContain("language tag");
    expect(await form.locator('[data-field="name"] .field-error').count()).toBe(0);
    await screenshot(page, "03-agent-create-field-errors", { fullPage: true });

    await form.getByLabel("Max steps per generation").fill("12");
    await form.getByLabel("Browser language").fill("en-GB");
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.getByRole("heading", { name: `Scout ${suffix}`, level: 1 }).waitFor();
    const agentId = new URL(page.url()).pathname.split("/")[2]!;
    const stored = (await api("GET", `/api/agents/${agentId}`)).json;
    expect(stored).toMatchObject({ name: `Scout ${suffix}`, model: `mock-model-${suffix}`, max_steps: 12, browser_language: "en-GB", scripting: true });
    await page.getByRole("link", { name: `Research ${suffix}` }).click();
    await page.locator(`tr[data-agent="Scout ${suffix}"]`).waitFor();
    await screenshot(page, "04-guild-agents");
  });

  it("edits an agent's settings (model section, limits, capability flags) and deletes it after a confirmation", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: `Edits ${suffix}` } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Editor ${suffix}`, model: `mock-model-e${suffix}` } })).json;
    await page.goto(`${apiUrl}/agents/${agent.id}/settings`);
    await page.getByRole("heading", { name: `Settings of Editor ${suffix}` }).waitFor();
    expect(await page.locator("legend", { hasText: /^Model$/ }).count()).toBe(1);
    await page.getByLabel("Coding").check();
    // UI-029: the model section of a coding agent is the "Lead model".
    await page.locator("legend", { hasText: "Lead model" }).waitFor();
    await page.getByLabel("Max tool calls per run").fill("20000");
    await page.getByLabel("Thinking level").selectOption("high");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.locator('[data-field="max_tool_calls"] .field-error').waitFor();
    await page.getByLabel("Max tool calls per run").fill("80");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    await screenshot(page, "05-agent-settings", { fullPage: true });
    expect((await api("GET", `/api/agents/${agent.id}`)).json).toMatchObject({ coding: true, max_tool_calls: 80, thinking_level: "high" });

    await page.getByRole("button", { name: "Delete agent…" }).click();
    await page.getByRole("group", { name: /Confirm deleting/ }).waitFor();
    // The confirming button takes focus: Enter confirms from the keyboard.
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: `Edits ${suffix}`, level: 1 }).waitFor();
    expect((await api("GET", `/api/agents/${agent.id}`)).status).toBe(404);

    // A guild too, from the list; Cancel keeps it.
    await page.goto(`${apiUrl}/guilds`);
    const row = page.locator(`tr[data-guild="Edits ${suffix}"]`);
    await row.getByRole("button", { name: "Delete…" }).click();
    await row.getByRole("button", { name: "Cancel" }).click();
    expect((await api("GET", `/api/guilds/${guild.id}`)).status).toBe(200);
    await row.getByRole("button", { name: "Delete…" }).click();
    await row.getByRole("button", { name: "Delete", exact: true }).click();
    await row.waitFor({ state: "detached" });
    expect((await api("GET", `/api/guilds/${guild.id}`)).status).toBe(404);
  });

  it("UI-032: the settings toggle browser access and coding and change the browser language, saying that this replaces an idle box", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: `Boxes ${suffix}` } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Boxer ${suffix}` } })).json;
    expect(agent).toMatchObject({ browser: false, coding: false, browser_language: "en-US" });
    await page.goto(`${apiUrl}/agents/${agent.id}/settings`);
    await page.getByRole("heading", { name: `Settings of Boxer ${suffix}` }).waitFor();
    const tabs = page.getByRole("navigation", { name: "Agent pages" });
    expect(await tabs.getByRole("link", { name: "Browser" }).count()).toBe(0);
    expect(await page.getByTestId("box-change-hint").textContent()).toContain("replaces an idle box");

    await page.getByRole("checkbox", { name: "Browser", exact: true }).check();
    await page.getByRole("checkbox", { name: "Coding", exact: true }).check();
    await page.getByLabel("Browser language").fill("de-DE");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    // The Browser tab follows the saved flag.
    await tabs.getByRole("link", { name: "Browser" }).waitFor();
    expect((await api("GET", `/api/agents/${agent.id}`)).json).toMatchObject({ browser: true, coding: true, browser_language: "de-DE" });
    await screenshot(page, "05b-agent-box-settings", { fullPage: true });

    await page.getByRole("checkbox", { name: "Coding", exact: true }).uncheck();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    expect((await api("GET", `/api/agents/${agent.id}`)).json).toMatchObject({ browser: true, coding: false, browser_language: "de-DE" });
  });

  it("TASK-012: a coding agent's settings show its Task harness; Claude Code's settings save, and a 422 shows at its field", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: `Harnesses ${suffix}` } })).json;
    const chatter = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Chatter ${suffix}` } })).json;
    await page.goto(`${apiUrl}/agents/${chatter.id}/settings`);
    await page.getByRole("heading", { name: `Settings of Chatter ${suffix}` }).waitFor();
    expect(await page.getByTestId("task-harness").count()).toBe(0);

    const coder = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Harnessed ${suffix}`, coding: true } })).json;
    await page.goto(`${apiUrl}/agents/${coder.id}/settings`);
    await page.getByRole("heading", { name: `Settings of Harnessed ${suffix}` }).waitFor();
    const section = page.getByTestId("task-harness");
    expect(await section.getByLabel("Harness", { exact: true }).inputValue()).toBe("platform");
    expect(await section.getByLabel("Max turns per prompt").count()).toBe(0);
    await section.getByLabel("Harness", { exact: true }).selectOption("claude-code");
    await section.getByLabel("Max turns per prompt").fill("0");
    await section.getByLabel("Extra flags").fill("--strict-mcp-config\n--output-format json");
    await page.getByRole("button", { name: "Save settings" }).click();
    const turns = section.locator('[data-field="task_harness.max_turns"] .field-error');
    await turns.waitFor();
    expect(await turns.textContent()).toMatch(/>=\s*1|too small/i);
    expect(await section.locator('[data-field="task_harness.extra_flags"] .field-error').textContent()).toMatch(/^line 2: --output-format is not allowed/);
    await screenshot(page, "05c-agent-task-harness-errors", { fullPage: true });

    await section.getByLabel("Max turns per prompt").fill("25");
    await section.getByLabel("Extra flags").fill("--add-dir /data/workspace/lib\n--strict-mcp-config");
    await section.getByLabel("Allowed tools", { exact: true }).fill("Edit\nBash(git:*)");
    await section.getByLabel("Permission mode").selectOption("acceptEdits");
    await section.getByLabel("Provider API").selectOption("anthropic");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    expect((await api("GET", `/api/agents/${coder.id}`)).json.task_harness).toEqual({
      kind: "claude-code",
      model: null,
      max_turns: 25,
      permission_mode: "acceptEdits",
      allowed_tools: ["Edit", "Bash(git:*)"],
      disallowed_tools: [],
      extra_flags: ["--add-dir", "/data/workspace/lib", "--strict-mcp-config"],
      model_api: "anthropic",
    });
    await screenshot(page, "05d-agent-task-harness", { fullPage: true });
  });

  it("UI-032 / SBX-022: saving browser access in the settings destroys the agent's idle box (needs the engine)", async (ctx) => {
    const guild = (await api("POST", "/api/guilds", { body: { name: `Idle boxes ${suffix}` } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Idler ${suffix}`, coding: true } })).json;
    const sandbox = async () => (await api("GET", `/api/agents/${agent.id}/sandbox`)).json;
    // The CLI view brings the box up; without an engine it cannot (503).
    const started = await api("POST", `/api/agents/${agent.id}/cli/start`);
    if (started.status === 503) ctx.skip();
    expect(started.status).toBe(200);
    expect((await sandbox()).status).toBe("running");

    await page.goto(`${apiUrl}/agents/${agent.id}/settings`);
    await page.getByRole("checkbox", { name: "Browser", exact: true }).check();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    await until(async () => (await sandbox()).status === "none", "the idle box is destroyed", 60_000);
  }, 240_000);

  it("UI-010: the usage page shows cost and tokens per agent, guild and organisation, this month against an editable limit, with a chart", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: `Spend ${suffix}` } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Spender ${suffix}`, model: `mock-model-u${suffix}` } })).json;
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "count my tokens" } })).json;
    for (let i = 0; i < 100 && (await api("GET", `/api/runs/${run.id}/messages`)).json.data.length < 3; i++) await new Promise((r) => setTimeout(r, 100));
    const before = (await api("GET", "/api/organisation")).json.monthly_spend_limit_usd;

    await page.goto(`${apiUrl}/usage`);
    await page.getByRole("heading", { name: "Usage", level: 1, exact: true }).waitFor();
    const agentRow = page.getByTestId("agent-usage").locator("tr", { hasText: `Spender ${suffix}` });
    await agentRow.waitFor();
    const cells = await agentRow.locator("td").allTextContents();
    expect(cells[1]).toMatch(/^\$0\.0\d{3}$/);
    expect(Number(cells[2])).toBe(1);
    expect(Number(cells[3]!.replace(/,/g, ""))).toBeGreaterThan(0);
    await page
      .getByTestId("guild-usage")
      .locator("tr", { hasText: `Spend ${suffix}` })
      .waitFor();
    expect(await page.getByTestId("org-cost").textContent()).toMatch(/^\$\d/);
    expect(await page.locator("figure.chart svg rect.chart-bar").count()).toBeGreaterThan(0);

    try {
      await page.getByLabel("Monthly spend limit (USD, empty: none)").fill("lots");
      await page.getByRole("button", { name: "Save limit" }).click();
      await page.locator('[data-field="monthly_spend_limit_usd"] .field-error').waitFor();
      await page.getByLabel("Monthly spend limit (USD, empty: none)").fill("250");
      await page.getByRole("button", { name: "Save limit" }).click();
      await page.getByTestId("month-cost").filter({ hasText: "of $250.00" }).waitFor();
      expect(await page.getByRole("img", { name: /% of the monthly limit used/ }).count()).toBe(1);
      await screenshot(page, "06-usage", { fullPage: true });
      expect((await api("GET", "/api/organisation")).json.monthly_spend_limit_usd).toBe("250.000000");
    } finally {
      await api("PATCH", "/api/organisation", { body: { monthly_spend_limit_usd: before === null ? null : Number(before) } });
    }
  });
});
