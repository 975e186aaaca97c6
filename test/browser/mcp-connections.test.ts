import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, launchChromium, type Page, screenshot, signIn, until } from "./browser";

/**
 * The Connections page: an OAuth-protected MCP server added from the console, authorised
 * through the local authorization server's Approve page and back, its tools listed as the
 * server's own text, a tool turned off, a grant to an agent, and the agent's settings showing
 * the connection that reaches it.
 */
describe("MCP connections in the console", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");
  const mcpServerUrl = inject("mcpServerUrl");
  const suffix = Math.random().toString(36).slice(2, 7);
  const slug = `oauth${suffix}`;

  beforeAll(async () => {
    chromium = await launchChromium();
    page = await chromium.context.newPage();
    // The Approve page is shown, as a person would see it.
    await fetch(`${mcpServerUrl}/oauth/__settings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ auto_approve: false }),
    });
  });
  afterAll(async () => {
    await chromium?.close();
  });

  it("adds an OAuth connection, authorises it at the server's page and back, and lists its tools as the server's text", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: `MCP guild ${suffix}` } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Caller ${suffix}`, model: `mock-model-mcp${suffix}` } })).json;
    await signIn(page, apiUrl, inject("token"));
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Connections" }).click();
    await page.getByRole("heading", { name: "Connections", level: 1 }).waitFor();

    const form = page.locator("form[aria-labelledby=new-connection]");
    await form.getByLabel("Server URL").fill(`${mcpServerUrl}/oauth/mcp`);
    await form.getByLabel("Slug").fill("Not A Slug");
    await form.getByLabel("OAuth").check();
    await form.getByRole("button", { name: "Add connection" }).click();
    const slugError = form.locator('[data-field="slug"] .field-error');
    await slugError.waitFor();
    expect(await slugError.textContent()).toContain("lowercase");

    await form.getByLabel("Slug").fill(slug);
    await form.getByRole("button", { name: "Add connection" }).click();
    const card = page.locator(`[data-connection="${slug}"]`);
    await card.waitFor();
    await until(
      async () => ((await card.getByTestId("connection-status").textContent()) ?? "").includes("needs authorisation"),
      "the card asks for authorisation",
    );

    // MCP-OAUTH: where it signs in is shown before the operator leaves for it.
    await card.getByRole("button", { name: "Authorise" }).click();
    await card.getByRole("button", { name: "Continue to sign in" }).waitFor();
    expect(await card.getByTestId("signs-in-at").textContent()).toContain(`Signs in at ${new URL(mcpServerUrl).origin}`);
    await card.getByRole("button", { name: "Continue to sign in" }).click();
    await page.getByRole("heading", { name: "Local MCP authorization" }).waitFor();
    expect(page.url().startsWith(`${mcpServerUrl}/oauth/authorize?`)).toBe(true);
    await screenshot(page, "mcp-oauth-approve");
    await page.getByRole("button", { name: "Approve" }).click();

    // Back through the console's callback page to the Connections page, authorised.
    await page.getByRole("heading", { name: "Connections", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/connections");
    const ready = page.locator(`[data-connection="${slug}"]`);
    await until(async () => ((await ready.getByTestId("connection-status").textContent()) ?? "") === "ready", "the connection is ready");
    const tools = ready.getByRole("list", { name: `Tools of ${slug}` });
    await tools.locator('[data-tool="echo"]').waitFor();
    const description = tools.locator('[data-tool="echo"] [data-from-server]');
    expect(await description.textContent()).toContain("From the server (untrusted)");
    await screenshot(page, "mcp-oauth-ready", { fullPage: true });

    // A tool turned off stays off after the page is loaded again.
    const echo = tools.locator('[data-tool="echo"] input[type=checkbox]');
    expect(await echo.isChecked()).toBe(true);
    await echo.uncheck();
    await until(async () => {
      const read = (await api("GET", "/api/mcp/connections?limit=200")).json.data.find((c: { slug: string }) => c.slug === slug);
      return read?.tools.find((t: { remote_name: string }) => t.remote_name === "echo")?.enabled === false;
    }, "the API has echo disabled");
    expect(await echo.isChecked()).toBe(false);
    await echo.check();

    await ready.getByLabel("Grant to").selectOption({ label: `Agent ${agent.name}` });
    await ready.getByRole("button", { name: "Grant" }).click();
    await ready
      .getByRole("list", { name: `Grants of ${slug}` })
      .getByText(`Agent ${agent.name}`)
      .waitFor();

    await page.goto(`${apiUrl}/agents/${agent.id}/settings`);
    const reaching = page.locator(`[data-agent-connection="${slug}"]`);
    await reaching.waitFor();
    await reaching
      .getByRole("list", { name: `Tools of ${slug} for this agent` })
      .getByText(`${slug}__echo`, { exact: true })
      .waitFor();
    await screenshot(page, "mcp-agent-settings", { fullPage: true });
  });
});
