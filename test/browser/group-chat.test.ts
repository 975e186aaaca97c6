import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, scriptModel, signedInPage, signIn, until } from "./browser";
import { startDropProxy } from "./drop-proxy";

/** A guild with these agents, each on its own mock model name so parallel files never take each other's replies. */
async function newGuild(name: string, agentNames: string[]) {
  const guild = (await api("POST", "/api/guilds", { body: { name } })).json;
  const agents: Array<{ id: string; name: string; model: string }> = [];
  for (const agentName of agentNames) {
    const model = `mock-model-${Math.random().toString(36).slice(2, 10)}`;
    const response = await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: agentName, model } });
    if (response.status !== 201) throw new Error(`agent refused: ${response.text}`);
    agents.push({ ...response.json, model });
  }
  return { guild, agents };
}

/** Every seq of the guild's chat, as the API holds it. */
async function storedSeqs(guildId: string): Promise<number[]> {
  return (await api("GET", `/api/guilds/${guildId}/chat?limit=200`)).json.data.map((m: { seq: number }) => m.seq);
}

/** The seqs of the chat's messages, in page order. */
const shownSeqs = (page: Page) => page.locator("li[data-seq]").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-seq"))));

/** The guild's group chat in the console: posting, tags, live rows, who is reading, group runs. */
describe("operator console: the guild's group chat", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");
  const mockUrl = inject("mockModelUrl");
  const suffix = Math.random().toString(36).slice(2, 8);

  beforeAll(async () => {
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
  });
  afterAll(async () => {
    await chromium?.close();
  });

  it("GROUP-001 / GROUP-002: the operator posts in the guild chat, an agent's group run appears and its Group Chat info wake shows in the run view", async () => {
    const {
      guild,
      agents: [scout],
    } = await newGuild(`Chat ${suffix}`, ["Scout"]);
    // A plain text reply, slow enough that the chat shows Scout reading.
    await scriptModel(mockUrl, scout!.model, [{ content: "Nothing new since yesterday.", delay_ms: 2_500 }]);

    await page.goto(`${apiUrl}/guilds/${guild.id}`);
    await page.getByRole("navigation", { name: "Guild pages" }).getByRole("link", { name: "Group chat" }).click();
    await page.getByRole("heading", { name: `Group chat of Chat ${suffix}`, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/guilds/${guild.id}/chat`);
    await page.getByText("No messages yet.").waitFor();
    await page.locator(".live[data-connection=open]").waitFor();

    // The agent's chip inserts the tag; Enter sends.
    const box = page.getByLabel("Message to the guild");
    await page.getByRole("group", { name: "Tag an agent" }).getByRole("button", { name: "@Scout" }).click();
    expect(await box.inputValue()).toBe("@Scout ");
    await box.press("End");
    await box.pressSequentially("what is new?");
    await box.press("Enter");

    const posted = page.locator("li[data-author-kind=operator]", { hasText: "what is new?" });
    await posted.waitFor();
    await until(async () => (await box.inputValue()) === "", "the sent text leaves the box");
    const seq = Number(await posted.getAttribute("data-seq"));
    expect(await posted.locator("mark.mention").textContent()).toBe("@Scout");
    expect(await posted.getByTestId("tagged").textContent()).toBe("Tagged: @Scout");
    expect((await api("GET", `/api/guilds/${guild.id}/chat`)).json.data).toEqual([
      expect.objectContaining({ seq, author_kind: "operator", content: "@Scout what is new?", tagged: [scout!.id], depth: 0 }),
    ]);

    // Scout reads the chat in a group run: the chat says so, with a link to the run.
    const reading = page.getByTestId("reading");
    await reading.getByRole("link", { name: "Scout" }).waitFor();
    expect(await reading.textContent()).toContain(`(through #${seq})`);
    await screenshot(page, "40-group-chat-reading");
    const runId = (await reading.getByRole("link", { name: "Scout" }).getAttribute("href"))!.split("/").pop()!;
    const groupRuns = (await api("GET", `/api/agents/${scout!.id}/runs?kind=group`)).json.data as Array<{ id: string; kind: string }>;
    expect(groupRuns.map((r) => r.id)).toEqual([runId]);
    await page
      .getByTestId("read")
      .filter({ hasText: `Scout through #${seq}` })
      .waitFor();
    await reading.waitFor({ state: "detached" });
    expect(await shownSeqs(page)).toEqual(await storedSeqs(guild.id));
    await screenshot(page, "41-group-chat");

    // The run view: a group run, delivered through the post, opened by the Group Chat info wake.
    await page.getByTestId("read").getByRole("link", { name: "run", exact: true }).click();
    await page.getByTestId("run-status").waitFor();
    expect(new URL(page.url()).pathname).toBe(`/runs/${runId}`);
    expect(await page.locator(".run-head .kind-group").textContent()).toBe("Group chat");
    expect(await page.getByTestId("group-delivery").textContent()).toContain(`delivered through seq ${seq}`);
    const wake = page.locator("li[data-role=user]").first();
    await wake.getByTestId("group-wake").waitFor();
    expect(await wake.locator(".role").textContent()).toBe("Group Chat info");
    expect(await page.getByText("User (group)").count()).toBe(0);
    expect(await wake.locator("blockquote").textContent()).toBe("@Scout what is new?");
    expect(await wake.locator(".wake-line").first().textContent()).toContain(`#${seq}`);
    expect(await wake.getByTestId("wake-tagged").textContent()).toBe("Tagged: this agent was mentioned");
    expect(await wake.textContent()).toContain(`Delivered through seq ${seq}.`);
    await page.locator("li[data-role=assistant]", { hasText: "Nothing new since yesterday." }).waitFor();
    await screenshot(page, "42-group-run-wake");

    // Back to the chat from the run.
    await page
      .getByTestId("group-delivery")
      .getByRole("link", { name: `Chat ${suffix}` })
      .click();
    await page.getByRole("heading", { name: `Group chat of Chat ${suffix}` }).waitFor();
  });

  it("UI-001: asked in the group chat, the agent creates a routine with schedule_create in its group run; the Routine tab lists it", async () => {
    const {
      guild,
      agents: [keeper],
    } = await newGuild(`Routines ${suffix}`, ["Keeper"]);
    const wakeWindow = { timezone: "Europe/Berlin", start: "09:00", end: "10:00", max_wakes: 2 };
    await scriptModel(mockUrl, keeper!.model, [
      {
        tool_calls: [
          { name: "schedule_create", arguments: { description: "Stand-up nudge", instruction: "Ask the guild for updates.", wake_window: wakeWindow } },
        ],
      },
      { content: "Noted." },
    ]);
    await page.goto(`${apiUrl}/guilds/${guild.id}/chat`);
    await page.locator(".live[data-connection=open]").waitFor();
    const box = page.getByLabel("Message to the guild");
    await box.fill("@Keeper nudge us for updates every morning");
    await box.press("Enter");
    await page.locator("li[data-author-kind=operator]", { hasText: "nudge us for updates" }).waitFor();

    // The group run's trace shows the call; the chat itself does not.
    await page.getByTestId("read").getByRole("link", { name: "run", exact: true }).click();
    await page.locator('[data-tool-call="schedule_create"]').waitFor();
    await page.locator("li[data-role=tool]", { hasText: "Result of schedule_create" }).waitFor();
    expect(await page.locator(".run-head .kind-group").textContent()).toBe("Group chat");

    await page.goto(`${apiUrl}/agents/${keeper!.id}/routines`);
    const row = page.locator('tr[data-routine="Stand-up nudge"]');
    await row.waitFor();
    expect(await row.locator("td.trigger").textContent()).toBe("random 2× between 09:00 and 10:00 (Europe/Berlin)");
    expect((await api("GET", `/api/agents/${keeper!.id}/schedules`)).json.data).toEqual([
      expect.objectContaining({ description: "Stand-up nudge", wake_window: wakeWindow, cron: null }),
    ]);
  });

  it("UI-005: for a group run the operator reads the Group Chat info wake, the private tool trace, and each reply's exact prompt with its Memory", async () => {
    const {
      guild,
      agents: [archivist],
    } = await newGuild(`Memories ${suffix}`, ["Archivist"]);
    expect((await api("PATCH", `/api/agents/${archivist!.id}`, { body: { memory: true } })).status).toBe(200);
    expect((await api("PUT", `/api/agents/${archivist!.id}/memory`, { body: { content: "The guild meets on Tuesdays." } })).status).toBe(200);
    // With Memory on, a group wake ends with memory_write (GROUP-005).
    await scriptModel(mockUrl, archivist!.model, [
      { tool_calls: [{ name: "memory_write", arguments: { content: "The guild meets on Tuesdays. Asked again today." } }] },
      { content: "Tuesday, as always." },
    ]);
    await page.goto(`${apiUrl}/guilds/${guild.id}/chat`);
    await page.locator(".live[data-connection=open]").waitFor();
    const box = page.getByLabel("Message to the guild");
    await box.fill("@Archivist when do we meet?");
    await box.press("Enter");
    await page.getByTestId("read").getByRole("link", { name: "run", exact: true }).click();
    await page.getByTestId("run-status").waitFor();

    // The wake, as read for the operator and as the model got it.
    const wake = page.locator("li[data-role=user]").first();
    await wake.getByTestId("group-wake").waitFor();
    expect(await wake.locator("blockquote").textContent()).toBe("@Archivist when do we meet?");
    await wake.locator(".wake-raw summary").click();
    const wakeText = (await wake.locator(".wake-raw pre").textContent()) ?? "";
    expect(wakeText).toContain("when do we meet?");

    // The private trace: the memory_write call and its result, which the chat never shows.
    const call = page.locator('[data-tool-call="memory_write"]');
    await call.waitFor();
    expect(await call.getByRole("group", { name: "Arguments of memory_write" }).textContent()).toContain("Asked again today.");
    await page.locator("li[data-role=tool]", { hasText: "Result of memory_write" }).waitFor();
    const reply = page.locator("li[data-role=assistant]", { hasText: "Tuesday, as always." });
    await reply.waitFor();

    // The first reply's exact prompt: the system prompt with the Memory the run opened with, then the wake.
    const first = page.locator("li[data-role=assistant]").first();
    await first.locator(".prompt-replay summary").click();
    const messages = first.locator(".prompt-messages > li");
    await messages.first().waitFor();
    expect(await first.locator(".prompt-replay").textContent()).toContain("matches the recorded hash");
    expect(await messages.first().locator("strong").textContent()).toBe("system");
    expect(await messages.first().locator("pre").textContent()).toContain("<memory>\nThe guild meets on Tuesdays.\n</memory>");
    expect(await messages.nth(1).locator("strong").textContent()).toBe("user");
    expect(await messages.nth(1).locator("pre").textContent()).toBe(wakeText);

    // The last reply's exact prompt carries the trace: the call and its result.
    await reply.locator(".prompt-replay summary").click();
    const later = reply.locator(".prompt-messages > li");
    await later.first().waitFor();
    const roles = await later.locator("strong").allTextContents();
    expect(roles).toEqual(["system", "user", "assistant", "tool"]);
    expect(await later.nth(2).locator("pre").textContent()).toContain("memory_write");
    expect(await later.nth(3).locator("pre").textContent()).toContain("Memory saved");
    await screenshot(page, "44-group-run-exact-prompt", { fullPage: true });

    await page.goto(`${apiUrl}/guilds/${guild.id}/chat`);
    await page.locator("li[data-author-kind=operator]", { hasText: "when do we meet?" }).waitFor();
    expect(await page.locator("li[data-seq]").count()).toBe(1);
  });

  it("GROUP-015: an agent's group_post arrives live, styled as the agent's, with its @tag; after a dropped stream every message shows once", async () => {
    const {
      guild,
      agents: [ada, bo],
    } = await newGuild(`Crew ${suffix}`, ["Ada", "Bo"]);
    await scriptModel(mockUrl, ada!.model, [
      { tool_calls: [{ name: "group_post", arguments: { content: "@bo can you check the logs?" } }] },
      { content: "Asked Bo." },
    ]);
    const proxy = await startDropProxy(apiUrl);
    const second = await chromium.context.newPage();
    try {
      await signIn(second, proxy.url, inject("token"));
      const lastEventIds: Array<string | undefined> = [];
      second.on("request", (request) => {
        if (request.url().includes(`/api/guilds/${guild.id}/events`)) lastEventIds.push(request.headers()["last-event-id"]);
      });
      await second.goto(`${proxy.url}/guilds/${guild.id}/chat`);
      await second.locator(".live[data-connection=open]").waitFor();

      // A post made elsewhere arrives live; it wakes Ada, whose group_post tags Bo.
      expect((await api("POST", `/api/guilds/${guild.id}/chat`, { body: { content: "Morning, team" } })).status).toBe(201);
      await second.locator("li[data-author-kind=operator]", { hasText: "Morning, team" }).waitFor();
      const reply = second.locator("li[data-author-kind=agent]", { hasText: "can you check the logs?" });
      await reply.waitFor({ timeout: 20_000 });
      expect(await reply.locator(".author").textContent()).toBe("Ada");
      expect(await reply.locator(".author").getAttribute("href")).toBe(`/agents/${ada!.id}`);
      expect(await reply.locator(".badge.author-agent").textContent()).toBe("Agent");
      expect(await reply.locator("mark.mention").textContent()).toBe("@bo");
      expect(await reply.getByTestId("tagged").textContent()).toBe("Tagged: @Bo");
      expect(await reply.textContent()).toContain("reply depth 1");
      await screenshot(second, "43-group-chat-agent-post");

      // The connection drops; a post made meanwhile shows after the reconnect, and nothing twice.
      await until(async () => lastEventIds.length >= 1, "the stream opened");
      proxy.dropAll();
      expect((await api("POST", `/api/guilds/${guild.id}/chat`, { body: { content: "Posted while you were away", tagged: [bo!.id] } })).status).toBe(201);
      await second.locator("li[data-author-kind=operator]", { hasText: "Posted while you were away" }).waitFor({ timeout: 20_000 });
      await second.locator(".live[data-connection=open]").waitFor();
      expect(lastEventIds.length).toBeGreaterThanOrEqual(2);
      expect(lastEventIds[0]).toBeUndefined();
      expect(Number(lastEventIds[1])).toBeGreaterThanOrEqual(1);
      await until(
        async () => JSON.stringify(await shownSeqs(second)) === JSON.stringify(await storedSeqs(guild.id)),
        "the page shows every stored message once",
      );
      const shown = await shownSeqs(second);
      expect(new Set(shown).size).toBe(shown.length);
    } finally {
      await second.close();
      await proxy.close();
    }
  });

  it("GROUP-001: the composer breaks lines with Shift+Enter and keeps its text on a 422, shown under the box; earlier messages load on demand, each once", async () => {
    const { guild } = await newGuild(`Archive ${suffix}`, []);
    for (let i = 1; i <= 55; i++) await api("POST", `/api/guilds/${guild.id}/chat`, { body: { content: `note ${i}` } });
    await page.goto(`${apiUrl}/guilds/${guild.id}/chat`);
    await page.locator("li[data-seq]", { hasText: "note 55" }).waitFor();
    expect(await page.locator("li[data-seq]").count()).toBe(50);
    expect(await page.locator("li[data-seq]", { hasText: /note 5$/ }).count()).toBe(0);
    await page.getByRole("button", { name: "Load earlier messages" }).click();
    await page.locator("li[data-seq]", { hasText: /note 1$/ }).waitFor();
    await page.getByRole("button", { name: "Load earlier messages" }).waitFor({ state: "detached" });
    expect(await shownSeqs(page)).toEqual(await storedSeqs(guild.id));
    expect((await shownSeqs(page)).length).toBe(55);

    const box = page.getByLabel("Message to the guild");
    const long = "x".repeat(8_001);
    await box.fill(long);
    await page.getByRole("button", { name: "Send" }).click();
    const error = page.locator('[data-field="content"] .field-error');
    await error.waitFor();
    expect(await box.getAttribute("aria-invalid")).toBe("true");
    expect(await box.inputValue()).toBe(long);
    expect((await storedSeqs(guild.id)).length).toBe(55);
    await screenshot(page, "44-group-chat-422");

    await box.fill("line one");
    await box.press("Shift+Enter");
    await box.pressSequentially("line two");
    expect(await box.inputValue()).toBe("line one\nline two");
    await box.press("Enter");
    await page.locator("li[data-seq]", { hasText: "line two" }).waitFor();
    await error.waitFor({ state: "detached" });
    const chat = (await api("GET", `/api/guilds/${guild.id}/chat?limit=1`)).json.data;
    expect(chat[0].content).toBe("line one\nline two");
  });

  it("GROUP-015: the agent's settings offer group_post, on by default; turning it off saves it", async () => {
    const {
      agents: [quiet],
    } = await newGuild(`Settings ${suffix}`, ["Quiet"]);
    expect((await api("GET", `/api/agents/${quiet!.id}`)).json.group_post).toBe(true);
    await page.goto(`${apiUrl}/agents/${quiet!.id}/settings`);
    const flag = page.getByLabel("Posts in the group chat");
    await flag.waitFor();
    expect(await flag.isChecked()).toBe(true);
    await flag.uncheck();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    expect((await api("GET", `/api/agents/${quiet!.id}`)).json.group_post).toBe(false);
  });
});
