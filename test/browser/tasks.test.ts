import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { approveInstall } from "../../scripts/forge/claim";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, scriptModel, signedInPage, until } from "./browser";

/**
 * The guild's task board and a task's page: filing from the New task form (its 422s beside
 * the fields, the base branch following the repository), the board's columns, a message
 * listed queued, the status menu, and an answer read before an action never undoing it.
 */
describe("operator console: tasks", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");
  const suffix = Math.random().toString(36).slice(2, 8);
  let guild: { id: string; name: string };
  let coder: { id: string; name: string };
  /** The task the first test files, which the later tests open. */
  let filed: { id: string; key: string };

  beforeAll(async () => {
    guild = (await api("POST", "/api/guilds", { body: { name: `Tasks guild ${suffix}` } })).json;
    coder = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Coder ${suffix}`, coding: true } })).json;
    await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Writer ${suffix}` } });
    for (const [name, branch] of [
      ["widgets", "trunk"],
      ["gadgets", "main"],
    ]) {
      const repo = await api("POST", `/api/guilds/${guild.id}/repositories`, { body: { full_name: `tasks-${suffix}/${name}`, default_branch: branch } });
      if (repo.status !== 201) throw new Error(`repository refused: ${repo.text}`);
    }
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
  });
  afterAll(async () => {
    await chromium?.close();
    if (guild) await api("DELETE", `/api/guilds/${guild.id}`);
  });

  it("UI / TASK-001 / TASK-003: a task filed from the New task form (422s beside the fields, the base branch following the repository) shows on the board", async () => {
    await page.goto(`${apiUrl}/guilds/${guild.id}`);
    await page.getByRole("navigation", { name: "Guild pages" }).getByRole("link", { name: "Tasks" }).click();
    await page.getByRole("heading", { name: "Tasks", level: 1 }).waitFor();
    expect(await page.getByRole("navigation", { name: "Guild pages" }).getByRole("link", { name: "Tasks" }).getAttribute("aria-current")).toBe("page");
    expect(await page.title()).toBe("Tasks · Guilds console");
    await page.getByText("No task in this guild yet.").waitFor();

    await page.getByRole("button", { name: "New task" }).click();
    const form = page.locator("form[aria-labelledby=new-task]");
    // Only the guild's coding agents are offered.
    expect(await form.getByLabel("Agent").locator("option").allTextContents()).toEqual(["Choose an agent", coder.name]);
    // Nothing filled in: the API's 422 names the fields, each message beside its field.
    await form.getByRole("button", { name: "File task" }).click();
    await form.locator('[data-field="title"] .field-error').waitFor();
    expect(await form.locator('[data-field="repository_id"] .field-error').count()).toBe(1);
    expect(await form.getByLabel("Title").getAttribute("aria-invalid")).toBe("true");

    await form.getByLabel("Title").fill("Make the widgets faster");
    await form.getByLabel("Description").fill("The **list** takes 3 s to render.");
    await form.getByLabel("Agent").selectOption({ label: coder.name });
    await form.getByLabel("Repository").selectOption({ label: `tasks-${suffix}/widgets` });
    expect(await form.getByLabel("Base branch").inputValue()).toBe("trunk");
    await form.getByLabel("Repository").selectOption({ label: `tasks-${suffix}/gadgets` });
    expect(await form.getByLabel("Base branch").inputValue()).toBe("main");
    await form.getByLabel("Repository").selectOption({ label: `tasks-${suffix}/widgets` });
    expect(await form.getByLabel("Base branch").inputValue()).toBe("trunk");
    await form.getByRole("button", { name: "File task" }).click();

    const notice = page.getByTestId("task-filed");
    await notice.waitFor();
    const key = (await notice.getByRole("link").textContent())!;
    expect(key).toBe("WIDGETS-1");
    const card = page.locator(`.task-card[data-task="${key}"]`);
    await card.waitFor();
    expect(await card.textContent()).toContain("Make the widgets faster");
    expect(await card.textContent()).toContain(coder.name);
    // Filed tasks are queued, then the queue may start them: the card may move columns while
    // it is read, so the column is whichever holds it once it is in one.
    const column = page.locator("[data-column]").filter({ has: page.locator(`.task-card[data-task="${key}"]`) });
    expect(["queued", "running", "waiting"]).toContain(await column.getAttribute("data-column"));

    const listed = (await api("GET", `/api/guilds/${guild.id}/tasks`)).json.data as Array<{ id: string; key: string; base_branch: string; agent_id: string }>;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ key, base_branch: "trunk", agent_id: coder.id });
    filed = { id: listed[0]!.id, key };
    await screenshot(page, "tasks-board", { fullPage: true });
  });

  it("UI-034 / UI-035 / TASK-018 / TASK-024: a task runs live on its page: the transcript streams, the draft pull request's link appears, a message queued on the page reaches the agent, and after the run Reset workspace deletes its volume", async () => {
    // A repository on the forge, reached through a connected installation, and a coding agent of its own model.
    const forgeAdmin = inject("forgeAdminUrl");
    const account = `tasks-live-${suffix}`;
    await fetch(`${forgeAdmin}/repos`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ full_name: `${account}/app`, private: true, files: { "README.md": "one\n" } }),
    });
    const claim = (await api("POST", "/api/github/claims")).json;
    const approval = await approveInstall(forgeAdmin, { account, repositories: ["app"], state: claim.state });
    const connection = (
      await api("POST", "/api/github/connections", { body: { installation_id: approval.installation_id, code: approval.code, state: claim.state } })
    ).json;
    const repository = (await api("POST", `/api/guilds/${guild.id}/repositories`, { body: { full_name: `${account}/app`, connection_id: connection.id } }))
      .json;
    const model = `live-${suffix}`;
    const live = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Live ${suffix}`, model, coding: true } })).json;
    await scriptModel(inject("mockModelUrl"), model, [
      { tool_calls: [{ name: "shell", arguments: { command: "echo hi > hi.txt && git add hi.txt && git commit -qm 'Add hi' && echo committed" } }] },
      { content: "Committed hi.txt; shall I finish?", delay_ms: 500 },
      { tool_calls: [{ name: "complete_task", arguments: { summary: "Added hi.txt." } }] },
      { content: "Done." },
    ]);
    const task = (await api("POST", `/api/guilds/${guild.id}/tasks`, { body: { title: "Say hi", agent_id: live.id, repository_id: repository.id } })).json;

    await page.goto(`${apiUrl}/tasks/${task.id}`);
    await page.getByRole("heading", { level: 1, name: `${task.key} Say hi` }).waitFor();
    // The run's rows arrive live; the first push ahead of the base opens the draft pull request.
    await page.locator(".transcript", { hasText: "Committed hi.txt; shall I finish?" }).waitFor({ timeout: 180_000 });
    const link = page.getByTestId("pull-request");
    await link.waitFor({ timeout: 60_000 });
    expect(await link.getAttribute("href")).toMatch(new RegExp(`/${account}/app/pull/\\d+$`));
    expect(await page.getByTestId("task-status").textContent()).toBe("running");
    await screenshot(page, "task-running", { fullPage: true });

    // UI-034: a message queued on the page reaches the waiting run; the agent completes the task.
    const box = page.getByLabel("Message to the agent", { exact: true });
    await box.fill("Yes, finish up.");
    await box.press("Enter");
    const message = page.locator(".task-message-list li", { hasText: "Yes, finish up." });
    await message.waitFor();
    await until(async () => (await message.getAttribute("data-state")) === "delivered", "the message is delivered", 60_000);
    await until(async () => (await page.getByTestId("task-status").textContent()) === "in review", "the badge reads in review", 120_000);
    expect((await api("GET", `/api/tasks/${task.id}`)).json.pull_request.url).toBe(await link.getAttribute("href"));

    // UI-035: once the run ended, Reset workspace (after asking) deletes the task's volume.
    const menu = page.getByTestId("status-menu");
    await menu.locator("summary").click();
    await menu.getByRole("button", { name: "Reset workspace…" }).click();
    await page
      .getByRole("group", { name: `Confirm resetting the workspace of ${task.key}` })
      .getByRole("button", { name: "Reset workspace", exact: true })
      .click();
    await page.getByText("Workspace reset: the next run clones the repository again.").waitFor();
    await screenshot(page, "task-in-review", { fullPage: true });
  }, 360_000);

  it("UI / TASK-019 / TASK-030: the task page lists a sent message as queued, and its status menu cancels the task after asking", async () => {
    await page.goto(`${apiUrl}/guilds/${guild.id}/tasks`);
    await page.locator(`.task-card[data-task="${filed.key}"]`).getByRole("link", { name: filed.key }).click();
    await page.waitForURL(`${apiUrl}/tasks/${filed.id}`);
    await page.getByRole("heading", { level: 1, name: `${filed.key} Make the widgets faster` }).waitFor();
    expect(await page.title()).toBe("Task · Guilds console");
    expect(await page.locator(".task-description strong").textContent()).toBe("list");
    expect(await page.locator(".task-facts").textContent()).toContain(`factory/task/${filed.key}`);

    const box = page.getByLabel("Message to the agent", { exact: true });
    await box.fill("Start with the list view, please");
    await box.press("Enter");
    const message = page.locator(".task-message-list li", { hasText: "Start with the list view, please" });
    await message.waitFor();
    // The list may show the message (the task's stream) before the POST's answer reaches the
    // form, which clears the box only then: wait for the box as the user sees it clear.
    await until(async () => (await box.inputValue()) === "", "the box is cleared once the message is accepted");
    expect(await message.getAttribute("data-state")).toBe("queued");
    expect(await message.textContent()).toContain("queued");
    const stored = (await api("GET", `/api/tasks/${filed.id}/messages`)).json.data;
    expect(stored).toMatchObject([{ content: "Start with the list view, please", delivered_at: null }]);

    const menu = page.getByTestId("status-menu");
    await menu.locator("summary").click();
    await menu.getByRole("button", { name: "Cancel task…" }).click();
    const confirm = page.getByRole("group", { name: `Confirm cancelling ${filed.key}` });
    await confirm.waitFor();
    // Back leaves it as it was.
    await confirm.getByRole("button", { name: "Back" }).click();
    await confirm.waitFor({ state: "detached" });
    expect((await api("GET", `/api/tasks/${filed.id}`)).json.status).not.toBe("cancelled");

    await menu.getByRole("button", { name: "Cancel task…" }).click();
    await confirm.getByRole("button", { name: "Cancel task", exact: true }).click();
    await until(async () => (await page.getByTestId("task-status").textContent()) === "cancelled", "the badge reads cancelled");
    expect((await api("GET", `/api/tasks/${filed.id}`)).json.status).toBe("cancelled");
    // A closed task offers no Cancel; Mark done is still there.
    expect(await menu.getByRole("button", { name: "Cancel task…" }).count()).toBe(0);
    expect(await menu.getByRole("button", { name: "Mark done…" }).count()).toBe(1);
    await screenshot(page, "task-cancelled", { fullPage: true });

    await page.getByRole("link", { name: "Tasks", exact: true }).click();
    await page.locator(`[data-column="done"] .task-card[data-task="${filed.key}"]`).waitFor();
  });

  it("UI: an answer read before the user's action never puts back the status the action replaced", async () => {
    const task = (
      await api("POST", `/api/guilds/${guild.id}/tasks`, {
        body: { title: "Document the gadgets", agent_id: coder.id, repository_id: (await api("GET", `/api/guilds/${guild.id}/repositories`)).json.data[1].id },
      })
    ).json as { id: string; key: string; status: string };
    await page.goto(`${apiUrl}/tasks/${task.id}`);
    const badge = page.getByTestId("task-status");
    await badge.waitFor();

    // The next read of the task is held until after the user's action: it answers the task as it was before.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = 0;
    let after = 0;
    await page.route(`${apiUrl}/api/tasks/${task.id}`, async (route) => {
      if (route.request().method() !== "GET") return route.continue();
      if (held++ === 0) {
        const response = await route.fetch();
        await released;
        return route.fulfill({ response });
      }
      after++;
      return route.continue();
    });
    // Sending a message reads the task again: that read is the one held.
    await page.getByLabel("Message to the agent", { exact: true }).fill("A note before the cancel");
    await page.getByLabel("Message to the agent", { exact: true }).press("Enter");
    await page.locator(".task-message-list li", { hasText: "A note before the cancel" }).waitFor();
    await until(async () => held === 1, "the read of the task is on its way");

    const menu = page.getByTestId("status-menu");
    await menu.locator("summary").click();
    await menu.getByRole("button", { name: "Cancel task…" }).click();
    await page
      .getByRole("group", { name: `Confirm cancelling ${task.key}` })
      .getByRole("button", { name: "Cancel task", exact: true })
      .click();
    await until(async () => (await badge.textContent()) === "cancelled", "the badge reads cancelled");

    // Every text the badge takes from here on, however briefly.
    await page.evaluate(`(() => {
      const badge = document.querySelector('[data-testid="task-status"]');
      window.badgeTexts = [];
      new MutationObserver(() => window.badgeTexts.push(badge.textContent)).observe(badge, { childList: true, characterData: true, subtree: true });
    })()`);
    let answered = 0;
    page.on("response", (r) => {
      if (r.url() === `${apiUrl}/api/tasks/${task.id}` && r.request().method() === "GET") answered++;
    });
    release();
    // The held answer lands, then the read that follows it.
    await until(async () => answered >= 2 && after >= 1, "the held answer and the read after the cancel");
    expect(await badge.textContent()).toBe("cancelled");
    expect((await page.evaluate<string[]>("window.badgeTexts")).filter((text) => text !== "cancelled")).toEqual([]);
    await page.unroute(`${apiUrl}/api/tasks/${task.id}`);
  });
});
