import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { approveInstall } from "../../scripts/forge/claim";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, signedInPage, until } from "./browser";

/** The forge's admin API (the stack's stand-in for GitHub). */
async function forge(method: string, path: string, body?: unknown) {
  const res = await fetch(`${inject("forgeAdminUrl")}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

/** A guild's Repositories page: connect GitHub through the App's install page, add and remove repositories, disconnect. */
describe("OP-REPO-6: repositories in the console", () => {
  let chromium: Chromium;
  let page: Page;
  const suffix = Math.random().toString(36).slice(2, 8);
  const account = `console-${suffix}`;

  beforeAll(async () => {
    ({ chromium, page } = await signedInPage(inject("apiUrl"), inject("token")));
  });
  afterAll(async () => {
    await chromium?.close();
  });

  it("OP-REPO-6: connects GitHub through the install page, adds a repository through it and a public one, names what GitHub refuses, disconnects and removes", async () => {
    for (const repo of ["app", "hidden"]) await forge("POST", "/repos", { full_name: `${account}/${repo}`, private: true });
    const guild = (await api("POST", "/api/guilds", { body: { name: `Repositories guild ${suffix}` } })).json;

    // A redirect that does not carry a state this organisation was given connects nothing, and says why.
    await page.goto(`${inject("apiUrl")}/github/setup?installation_id=987654321&setup_action=install&code=abc123&state=forged`);
    await page.getByRole("alert").getByText("github.state_invalid").waitFor();

    await page.goto(`${inject("apiUrl")}/guilds/${guild.id}`);
    await page.getByRole("navigation", { name: "Guild pages" }).getByRole("link", { name: "Repositories" }).click();
    await page.getByRole("heading", { name: "Repositories", level: 1 }).waitFor();
    await page.getByText("No repository in this guild yet.").waitFor();

    // Connect GitHub leaves for the App's install page on the forge, with a state of this organisation.
    await page.getByRole("button", { name: "Connect GitHub" }).click();
    await page.waitForURL(/\/apps\/guilds-forge\/installations\/new\?state=/);
    const state = new URL(page.url()).searchParams.get("state")!;
    await page.getByRole("heading", { name: "Install guilds-forge" }).waitFor();
    // The user approves on GitHub (the forge's admin call stands in), which sends them to the setup page.
    const approval = await approveInstall(inject("forgeAdminUrl"), { account, repositories: ["app"], state });
    expect(approval.redirect_url).toMatch(new RegExp(`^${inject("apiUrl")}/github/setup\\?`));
    await page.goto(approval.redirect_url!);
    await page.waitForURL(`${inject("apiUrl")}/guilds/${guild.id}/repositories`);
    const connection = page.getByRole("list", { name: "GitHub connections" }).locator(`[data-connection="${account}"]`);
    await connection.waitFor();
    expect(await connection.textContent()).toContain(`installation ${approval.installation_id}`);
    const installation = { id: approval.installation_id };

    // The same redirect again (a reload, or someone who saw it) is refused: the state is spent.
    await page.goto(approval.redirect_url!);
    await page.getByRole("alert").getByText("github.state_used").waitFor();
    await page.goto(`${inject("apiUrl")}/guilds/${guild.id}/repositories`);
    await connection.waitFor();

    const add = page.locator("form[aria-labelledby=add-repository]");
    await add.getByLabel("Repository").fill("no-slash");
    await add.getByRole("button", { name: "Add repository" }).click();
    await add.locator('[data-field="full_name"] .field-error').getByText("owner/repo").waitFor();

    // A repository the installation does not reach is named in the refusal; nothing is added.
    await add.getByLabel("Repository").fill(`${account}/hidden`);
    await add.getByLabel("Access").selectOption({ label: `Through the GitHub connection of ${account}` });
    await add.getByRole("button", { name: "Add repository" }).click();
    await add.getByRole("alert").getByText("hidden").waitFor();

    await add.getByLabel("Repository").fill(`${account}/app`);
    await add.getByRole("button", { name: "Add repository" }).click();
    const app = page.locator(`[data-repository="${account}/app"]`);
    await app.waitFor();
    expect(await app.textContent()).toContain(`Through ${account}`);

    await add.getByLabel("Repository").fill(`public-${suffix}/docs`);
    await add.getByLabel("Access").selectOption({ label: "Public: cloned anonymously" });
    await add.getByLabel("Default branch").fill("trunk");
    await add.getByRole("button", { name: "Add repository" }).click();
    const docs = page.locator(`[data-repository="public-${suffix}/docs"]`);
    await docs.waitFor();
    expect(await docs.textContent()).toContain("Public, cloned anonymously");
    expect(await docs.textContent()).toContain("trunk");
    await screenshot(page, "repositories");

    await connection.getByRole("button", { name: "Disconnect" }).click();
    await connection.getByText("disconnected").waitFor();
    await app.getByText("disconnected: generations fail").waitFor();

    await docs.getByRole("button", { name: "Remove…" }).click();
    await docs.getByRole("button", { name: "Remove", exact: true }).click();
    await until(async () => (await docs.count()) === 0, "the public repository is removed");
    const left = (await api("GET", `/api/guilds/${guild.id}/repositories`)).json.data.map((r: { full_name: string }) => r.full_name);
    expect(left).toEqual([`${account}/app`]);

    // Adding through the connection minted tokens (to prove access): none reached the page.
    const { tokens } = (await forge("GET", "/tokens")) as { tokens: Array<{ token: string; installation_id: number }> };
    const ours = tokens.filter((t) => t.installation_id === installation.id);
    expect(ours.length).toBeGreaterThan(0);
    const content = await page.content();
    for (const t of ours) expect(content).not.toContain(t.token);
    await api("DELETE", `/api/guilds/${guild.id}`);
  });

  it("OP-REPO-6: the forge's install page approves with its Install button and brings the user back connected", async () => {
    const own = `console-form-${suffix}`;
    await forge("POST", "/repos", { full_name: `${own}/tool`, private: true });
    const guild = (await api("POST", "/api/guilds", { body: { name: `Install form guild ${suffix}` } })).json;
    await page.goto(`${inject("apiUrl")}/guilds/${guild.id}/repositories`);
    await page.getByRole("button", { name: "Connect GitHub" }).click();
    await page.waitForURL(/\/apps\/guilds-forge\/installations\/new\?state=/);
    await page.getByLabel("Account", { exact: true }).fill(own);
    await page.getByLabel("Repositories (comma-separated names)").fill("tool");
    await page.getByRole("button", { name: "Install" }).click();
    await page.waitForURL(`${inject("apiUrl")}/guilds/${guild.id}/repositories`);
    await page.getByRole("list", { name: "GitHub connections" }).locator(`[data-connection="${own}"]`).waitFor();
    await api("DELETE", `/api/guilds/${guild.id}`);
  });

  it("ISSUE-33: a repository's task agent and trigger label are set on its row, a bad label shown at its field", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: `Issue settings guild ${suffix}` } })).json;
    const coder = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Builder", model: "mock-model", coding: true } })).json;
    await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Talker", model: "mock-model" } });
    const repo = (await api("POST", `/api/guilds/${guild.id}/repositories`, { body: { full_name: `issues-${suffix}/app` } })).json;
    await page.goto(`${inject("apiUrl")}/guilds/${guild.id}/repositories`);
    const issues = page.getByRole("form", { name: `Issues of issues-${suffix}/app` });
    await issues.waitFor();
    const agent = issues.getByLabel("Task agent");
    // Only the guild's coding agents can take tasks.
    expect(await agent.locator("option").allTextContents()).toEqual(["None: issues start no task", "Builder"]);
    await agent.selectOption({ label: "Builder" });
    await issues.getByLabel("Trigger label").fill("needs,agent");
    await issues.getByRole("button", { name: "Save" }).click();
    await issues.locator('[data-field="trigger_label"] .field-error').getByText("comma").waitFor();
    expect((await api("GET", `/api/guilds/${guild.id}/repositories`)).json.data[0]).toMatchObject({ task_agent_id: null, trigger_label: "agent" });

    await issues.getByLabel("Trigger label").fill("Needs agent");
    await issues.getByRole("button", { name: "Save" }).click();
    await until(async () => {
      const [saved] = (await api("GET", `/api/guilds/${guild.id}/repositories`)).json.data;
      return saved.task_agent_id === coder.id && saved.trigger_label === "Needs agent";
    }, "the task agent and trigger label are saved");
    await issues.locator('[data-field="trigger_label"] .field-error').waitFor({ state: "detached" });
    // The form settles after the save's answer reaches it: wait for it, as a user would see it.
    await issues.getByRole("button", { name: "Save", disabled: true }).waitFor();
    await screenshot(page, "repository-issues");
    expect(repo.task_agent_id).toBeNull();
    await api("DELETE", `/api/guilds/${guild.id}`);
  });
});
