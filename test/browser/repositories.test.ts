import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
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

/** A guild's Repositories page: connect a GitHub installation, add and remove repositories, disconnect. */
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

  it("OP-REPO-6: connects an installation, adds a repository through it and a public one, names what GitHub refuses, disconnects and removes", async () => {
    for (const repo of ["app", "hidden"]) await forge("POST", "/repos", { full_name: `${account}/${repo}`, private: true });
    const installation = (await forge("POST", "/installations", { account, repositories: ["app"] })) as { id: number };
    const guild = (await api("POST", "/api/guilds", { body: { name: `Repositories guild ${suffix}` } })).json;

    await page.goto(`${inject("apiUrl")}/guilds/${guild.id}`);
    await page.getByRole("navigation", { name: "Guild pages" }).getByRole("link", { name: "Repositories" }).click();
    await page.getByRole("heading", { name: "Repositories", level: 1 }).waitFor();
    await page.getByText("No repository in this guild yet.").waitFor();

    // An installation GitHub does not know is refused, with GitHub's reason.
    const connect = page.getByRole("form", { name: "Connect a GitHub installation" });
    await connect.getByLabel("Installation id").fill("987654321");
    await connect.getByRole("button", { name: "Connect" }).click();
    await connect.getByRole("alert").getByText("refused installation 987654321").waitFor();

    await connect.getByLabel("Installation id").fill(String(installation.id));
    await connect.getByRole("button", { name: "Connect" }).click();
    const connection = page.getByRole("list", { name: "GitHub connections" }).locator(`[data-connection="${account}"]`);
    await connection.waitFor();
    expect(await connection.textContent()).toContain(`installation ${installation.id}`);

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
});
