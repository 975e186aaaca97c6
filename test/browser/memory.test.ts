import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, signedInPage } from "./browser";

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
});
