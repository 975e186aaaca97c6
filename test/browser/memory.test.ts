import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, signedInPage } from "./browser";

/** The system prompt a new run of the agent opens with. */
async function openingPrompt(agentId: string): Promise<string> {
  const run = (await api("POST", `/api/agents/${agentId}/runs`, { body: {} })).json;
  return (await api("GET", `/api/runs/${run.id}/messages`)).json.data[0].payload.content as string;
}

/** The agent's Memory in its settings: read, edit, and what new runs open with. */
describe("console: Memory", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");

  beforeAll(async () => {
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
  });
  afterAll(async () => {
    await chromium?.close();
  });

  it("RUN-013: the operator edits an agent's Memory, and a new run opens with it", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: "Memory guild" } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Rememberer", memory: true } })).json;
    await page.goto(`${apiUrl}/agents/${agent.id}/settings`);
    const editor = page.getByLabel("Memory document");
    await editor.waitFor();
    expect(await editor.inputValue()).toBe("");
    await editor.fill("The operator's name is Ada.");
    await page.getByRole("button", { name: "Save Memory" }).click();
    await page.getByText("Saved.").waitFor();
    await screenshot(page, "30-agent-memory");
    expect((await api("GET", `/api/agents/${agent.id}/memory`)).json.content).toBe("The operator's name is Ada.");
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: {} })).json;
    const system = (await api("GET", `/api/runs/${run.id}/messages`)).json.data[0].payload.content as string;
    expect(system.slice(system.indexOf("<memory>"))).toContain("The operator's name is Ada.");
  });

  it("UI-036: Memory is switched per agent under Agent capabilities; new runs open with the document when it is on and without it when off", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: "Memory switch" } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Forgetful" } })).json;
    const other = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Steady", memory: true } })).json;
    expect(agent.memory).toBe(false);
    expect((await api("PUT", `/api/agents/${agent.id}/memory`, { body: { content: "Reply in French." } })).status).toBe(200);

    await page.goto(`${apiUrl}/agents/${agent.id}/settings`);
    const toggle = page.getByRole("checkbox", { name: "Memory", exact: true });
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(false);
    const state = page.getByTestId("memory-state");
    await state.filter({ hasText: "Memory is off for this agent" }).waitFor();
    expect(await openingPrompt(agent.id)).toContain("<memory>\nMemory is off.");

    await toggle.check();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    await state.filter({ hasText: "New runs start with this document" }).waitFor();
    await screenshot(page, "31-agent-memory-on", { fullPage: true });
    expect((await api("GET", `/api/agents/${agent.id}`)).json.memory).toBe(true);
    expect(await openingPrompt(agent.id)).toContain("Reply in French.");

    await toggle.uncheck();
    await page.getByRole("button", { name: "Save settings" }).click();
    await state.filter({ hasText: "Memory is off for this agent" }).waitFor();
    expect((await api("GET", `/api/agents/${agent.id}`)).json.memory).toBe(false);
    expect(await openingPrompt(agent.id)).not.toContain("Reply in French.");
    // Per agent: the other agent of the guild keeps its own.
    expect((await api("GET", `/api/agents/${other.id}`)).json.memory).toBe(true);
  });
});
