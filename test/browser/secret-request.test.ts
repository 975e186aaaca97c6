import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, scriptModel, signedInPage, until } from "./browser";

/** A secret the agent asks for in the direct chat, answered there (OP-SEC-5, OP-UI-8). */
describe("ISSUE-12: a secret request in the direct chat", () => {
  let chromium: Chromium;
  let page: Page;
  const suffix = Math.random().toString(36).slice(2, 8).toUpperCase();
  const name = `REQUESTED_${suffix}`;
  const value = `requested-value-${suffix}`;

  beforeAll(async () => ({ chromium, page } = await signedInPage(inject("apiUrl"), inject("token"))));
  afterAll(async () => {
    await chromium?.close();
  });

  it("OP-SEC-5: the request shows with a password field; saving stores the secret for the agent and the value is never shown", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: `Requests ${suffix}` } })).json;
    const model = `mock-request-${suffix.toLowerCase()}`;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Asker", model } })).json;
    await scriptModel(inject("mockModelUrl"), model, [
      { tool_calls: [{ name: "secret_request", arguments: { name, description: "Shop API", reason: "to read the orders" } }] },
      { content: "I asked the operator for the key." },
    ]);
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "check the orders" } })).json;
    await page.goto(`${inject("apiUrl")}/runs/${run.id}`);
    const card = page.locator(`[data-secret-request="${name}"]`);
    await card.waitFor();
    expect(await card.getAttribute("data-status")).toBe("pending");
    expect(await card.textContent()).toContain("to read the orders");
    const field = card.getByLabel(`Value of ${name}`);
    expect(await field.getAttribute("type")).toBe("password");
    await field.fill(value);
    await screenshot(page, "secret-request-pending");
    await card.getByRole("button", { name: "Save secret" }).click();
    await until(async () => (await card.getAttribute("data-status")) === "answered", "the request is answered");
    expect(await card.getByLabel(`Value of ${name}`).count()).toBe(0);
    expect(await page.content()).not.toContain(value);
    await page.reload();
    await card.waitFor();
    expect(await card.getAttribute("data-status")).toBe("answered");
    expect(await page.content()).not.toContain(value);
    const secret = (await api("GET", "/api/secrets")).json.data.find((s: { name: string }) => s.name === name);
    expect(secret.grants.map((g: { agent_id: string | null }) => g.agent_id)).toEqual([agent.id]);
    await api("DELETE", `/api/secrets/${secret.id}`);
    await api("DELETE", `/api/guilds/${guild.id}`);
  });
});
