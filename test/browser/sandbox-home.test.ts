import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, scriptModel, signedInPage, until } from "./browser";

/**
 * The agent's home in the console (SBX-005, SBX-036): a save that failed shows on the
 * agent's page, and Reset home in its settings asks first. NEEDS the container engine: the
 * failure is real, a home over the agent's 1 MiB workspace limit when a secret changes.
 */
describe("ISSUE-20: the agent's home in the console", () => {
  let chromium: Chromium;
  let page: Page;
  let guildId: string;
  const apiUrl = inject("apiUrl");
  const suffix = Math.random().toString(36).slice(2, 8);

  beforeAll(async () => {
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
    guildId = (await api("POST", "/api/guilds", { body: { name: `Homes ${suffix}` } })).json.id;
  });
  afterAll(async () => {
    await api("DELETE", `/api/guilds/${guildId}`);
    await chromium?.close();
  });

  const sandbox = async (agentId: string) => (await api("GET", `/api/agents/${agentId}/sandbox`)).json;

  it("SBX-036 / SBX-005: a failed save shows sandbox.home_save_failed on the agent's page; Reset home asks first, then resets and the alert goes (needs the engine)", async () => {
    const model = `homes-${suffix}`;
    const agent = (await api("POST", `/api/guilds/${guildId}/agents`, { body: { name: `Keeper ${suffix}`, model, coding: true, max_workspace_mib: 1 } })).json;
    const secret = (await api("POST", "/api/secrets", { body: { name: `HOME_${suffix.toUpperCase()}`, value: `v-${crypto.randomUUID()}` } })).json;
    expect((await api("POST", `/api/secrets/${secret.id}/grants`, { body: { agent_id: agent.id } })).status).toBe(201);
    // 3 MB that do not compress, over the 1 MiB limit.
    const command = "head -c 3000000 /dev/urandom > /home/agent/big.bin";
    await scriptModel(inject("mockModelUrl"), model, [{ tool_calls: [{ name: "shell", arguments: { command } }] }, { content: "done" }]);
    expect((await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "fill it" } })).status).toBe(201);
    await until(
      async () => (await api("GET", `/api/agents/${agent.id}/status`)).json.generating === false && (await sandbox(agent.id)).status === "running",
      "the run to end with its box up",
      180_000,
    );
    expect((await api("PATCH", `/api/secrets/${secret.id}`, { body: { value: `v-${crypto.randomUUID()}` } })).status).toBe(200);
    await until(async () => (await sandbox(agent.id)).home_save_error !== undefined, "the save to fail", 60_000);

    await page.goto(`${apiUrl}/agents/${agent.id}`);
    const alert = page.getByTestId("home-save-failed");
    await alert.waitFor();
    const text = (await alert.textContent()) ?? "";
    expect(text).toContain("sandbox.home_save_failed");
    expect(text).toContain("workspace.full");
    expect(text).toContain("Its box is kept");
    await screenshot(page, "home-save-failed");

    await alert.getByRole("link", { name: "Reset home" }).click();
    const reset = page.getByRole("button", { name: "Reset home…" });
    await reset.waitFor();
    // Cancel leaves everything as it was.
    await reset.click();
    const confirm = page.getByRole("group", { name: /Confirm reset/ });
    expect(await confirm.textContent()).toContain(`Reset the home of Keeper ${suffix}? This cannot be undone.`);
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect((await sandbox(agent.id)).home_save_error).toBeDefined();

    await reset.click();
    await page
      .getByRole("group", { name: /Confirm reset/ })
      .getByRole("button", { name: "Reset" })
      .click();
    await page.getByText("Home reset: the box was destroyed and the saved home deleted.").waitFor();
    const after = await sandbox(agent.id);
    expect(after.home_save_error).toBeUndefined();
    expect(after.saved_home).toBeNull();
    expect(after.status).toBe("none");
    await page.getByTestId("saved-home").getByText("No saved home").waitFor();
    await page.goto(`${apiUrl}/agents/${agent.id}`);
    await page.getByTestId("agent-status").waitFor();
    expect(await page.getByTestId("home-save-failed").count()).toBe(0);
  }, 300_000);
});
