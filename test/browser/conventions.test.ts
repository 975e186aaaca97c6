import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, scriptModel, signedInPage, until } from "./browser";

/** A fresh agent with its own mock model name, so parallel files never take each other's replies. */
async function newAgent(name: string) {
  const model = `mock-model-${Math.random().toString(36).slice(2, 10)}`;
  const guild = (await api("POST", "/api/guilds", { body: { name: `Conventions ${name}` } })).json;
  const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name, model } })).json;
  return { guild, agent: agent as { id: string; name: string }, model };
}

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");

/** The user rows' texts of a run, as stored. */
async function userTexts(runId: string): Promise<string[]> {
  const rows = (await api("GET", `/api/runs/${runId}/messages`)).json.data as Array<{ role: string; payload: { content: string } }>;
  return rows.filter((r) => r.role === "user").map((r) => r.payload.content);
}

/** Chat conventions of the console: Markdown, the composer's keys, the agent's status, History filters. */
describe("operator console: chat conventions", () => {
  let chromium: Chromium;
  let page: Page;
  let db: pg.Client;
  const apiUrl = inject("apiUrl");
  const mockUrl = inject("mockModelUrl");

  beforeAll(async () => {
    db = new pg.Client({ connectionString: inject("stackDatabaseUrl") });
    await db.connect();
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
  });
  afterAll(async () => {
    await db?.end();
    await chromium?.close();
  });

  it("UI-CONV: in the run composer Enter sends, Shift+Enter adds a line, Ctrl+Enter sends, and an Enter that confirms an IME composition does not send", async () => {
    const { agent } = await newAgent("Typist");
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: {} })).json;
    await page.goto(`${apiUrl}/runs/${run.id}`);
    const box = page.getByLabel("Message", { exact: true });
    await box.waitFor();
    expect(await page.locator("#composer-keys").textContent()).toBe("Enter sends, Shift+Enter starts a new line.");

    await box.fill("first line");
    await box.press("Shift+Enter");
    await box.pressSequentially("second line");
    expect(await box.inputValue()).toBe("first line\nsecond line");
    expect(await userTexts(run.id)).toEqual([]);
    await box.press("Enter");
    await until(async () => (await box.inputValue()) === "", "the sent text leaves the box");
    await page.locator("li[data-role=assistant]", { hasText: "echo: first line" }).waitFor();
    expect(await userTexts(run.id)).toEqual(["first line\nsecond line"]);

    await box.fill("with control");
    await box.press("Control+Enter");
    await page.locator("li[data-role=assistant]", { hasText: "echo: with control" }).waitFor();

    // The Enter that picks an input method's candidate arrives with isComposing set: the text stays.
    await box.fill("日本");
    await box.dispatchEvent("keydown", { key: "Enter", isComposing: true, bubbles: true, cancelable: true });
    await box.pressSequentially("語");
    await box.press("Enter");
    await page.locator("li[data-role=assistant]", { hasText: "echo: 日本語" }).waitFor();
    expect(await userTexts(run.id)).toEqual(["first line\nsecond line", "with control", "日本語"]);

    // The agent page's first message of a new chat too.
    await page.goto(`${apiUrl}/agents/${agent.id}`);
    const first = page.getByLabel("First message (optional)");
    await first.fill("Hello");
    await first.press("Shift+Enter");
    await first.pressSequentially("there");
    await first.press("Enter");
    await until(async () => /\/runs\/[^/]+$/.test(new URL(page.url()).pathname) && !page.url().endsWith(run.id), "the new chat opens");
    await page.locator("li[data-role=assistant]", { hasText: "echo: Hello" }).waitFor();
    expect(await userTexts(new URL(page.url()).pathname.split("/").at(-1)!)).toEqual(["Hello\nthere"]);
  });

  it("UI-CONV: messages render as Markdown: a highlighted code block, a link opening in a new tab without an opener, raw HTML shown as text", async () => {
    const { agent, model } = await newAgent("Writer");
    const reply = [
      "Here is **the plan**, see [the docs](https://example.com/docs).",
      "",
      "```ts",
      "const answer: number = 42;",
      "```",
      "",
      "| a | b |",
      "|---|---|",
      "| 1 | 2 |",
      "",
      '<img src="x" onerror="window.__pwned = true"> <script>window.__pwned = true</script>',
    ].join("\n");
    await scriptModel(mockUrl, model, [{ content: reply }]);
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "Plan it with `code` and *style*" } })).json;
    await page.goto(`${apiUrl}/runs/${run.id}`);
    const assistant = page.locator("li[data-role=assistant]");
    await assistant.locator("pre code").waitFor();

    expect(await assistant.locator("strong").textContent()).toBe("the plan");
    expect(await assistant.locator("pre code").getAttribute("class")).toBe("language-ts");
    expect(await assistant.locator("pre code .hljs-keyword").first().textContent()).toBe("const");
    expect(await assistant.locator("pre code .hljs-number").textContent()).toBe("42");
    const link = assistant.getByRole("link", { name: "the docs" });
    expect(await link.getAttribute("href")).toBe("https://example.com/docs");
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    expect(await assistant.locator("table td").allTextContents()).toEqual(["1", "2"]);
    // Raw HTML is text: no element made, no handler run.
    expect(await assistant.locator("img, script").count()).toBe(0);
    expect(await assistant.textContent()).toContain('<img src="x" onerror="window.__pwned = true">');
    expect(await page.evaluate("window.__pwned === undefined")).toBe(true);
    // The operator's own message too.
    const user = page.locator("li[data-role=user]");
    expect(await user.locator("code").textContent()).toBe("code");
    expect(await user.locator("em").textContent()).toBe("style");
    await screenshot(page, "60-run-markdown", { fullPage: true });
  });

  it("UI-CONV: the group chat renders Markdown with @mentions marked; raw HTML stays text", async () => {
    const { guild, agent } = await newAgent("Scribe");
    await api("POST", `/api/guilds/${guild.id}/chat`, { body: { content: "Hi @Scribe, run `npm test` and **report** <b>now</b>" } });
    await page.goto(`${apiUrl}/guilds/${guild.id}/chat`);
    const message = page.locator("li[data-seq]", { hasText: "run npm test" });
    await message.waitFor();
    expect(await message.locator("mark.mention").textContent()).toBe(`@${agent.name}`);
    expect(await message.locator(".md code").textContent()).toBe("npm test");
    expect(await message.locator(".md strong").textContent()).toBe("report");
    expect(await message.locator(".md b").count()).toBe(0);
    expect(await message.locator(".md").textContent()).toContain("<b>now</b>");
  });

  it("UI-CONV: the agent's page shows its next routine wake-up, and that it is generating (with its run) during a slow generation, then idle", async () => {
    const { agent, model } = await newAgent("Worker");
    const schedule = (
      await api("POST", `/api/agents/${agent.id}/schedules`, {
        body: { description: "Daily digest", instruction: "Summarise the day", cron: "0 6 * * *" },
      })
    ).json;
    await page.goto(`${apiUrl}/agents/${agent.id}`);
    const status = page.getByTestId("agent-status");
    await page.locator("[data-testid=agent-status][data-generating=false]").waitFor();
    expect(await status.textContent()).toContain("Idle");
    const wake = status.locator('[data-deadline="schedule"]');
    await wake.waitFor();
    expect(await wake.locator("dt").textContent()).toBe("Next routine wake-up");
    expect(new Date((await wake.locator("time").getAttribute("datetime"))!).getTime()).toBe(new Date(schedule.next_run_at).getTime());
    expect(await wake.textContent()).toContain("06:00 UTC");

    // A slow reply: 60 words streamed 100 ms apart.
    await scriptModel(mockUrl, model, [{ content: words(60, "slow"), stream_chunk_ms: 100 }]);
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "Take your time" } })).json;
    await page.locator("[data-testid=agent-status][data-generating=true]").waitFor();
    const runLink = status.getByRole("link", { name: `run ${run.id.slice(0, 8)}` });
    expect(await runLink.getAttribute("href")).toBe(`/runs/${run.id}`);
    expect(await status.textContent()).toContain("Generating");
    // The run started elsewhere appears in History.
    await page.locator(`table.history tr[data-run="${run.id}"]`).waitFor();
    await screenshot(page, "61-agent-status-generating");

    await page.locator("[data-testid=agent-status][data-generating=false]").waitFor({ timeout: 30_000 });
    expect(await status.textContent()).toContain("Idle");
    expect((await api("GET", `/api/runs/${run.id}/messages`)).json.data.at(-1).payload.content).toContain("slow59");
  }, 60_000);

  it("RUN-009 / UI-CONV: History filters by status and searches titles on the server, keeps the filter in the address across a reload, and still pages", async () => {
    const { agent } = await newAgent("Archivist");
    const make = async (title: string) => (await api("POST", `/api/agents/${agent.id}/runs`, { body: { title } })).json.id as string;
    for (let i = 1; i <= 27; i++) await make(`Note ${i}`);
    await make("Budget review");
    const plan = await make("Plan the launch");
    const retro = await make("Plan retro");
    await db.query(`update runs set status = 'completed', completed_at = now() where id = $1`, [retro]);

    await page.goto(`${apiUrl}/agents/${agent.id}`);
    const history = page.locator("table.history");
    const labels = () => history.locator("tbody tr td:first-child").allTextContents();
    await history.waitFor();
    await page.getByLabel("Status", { exact: true }).selectOption("completed");
    await until(async () => JSON.stringify(await labels()) === JSON.stringify(["Plan retro"]), "only the completed run is listed");
    expect(new URL(page.url()).searchParams.get("status")).toBe("completed");

    await page.getByLabel("Status", { exact: true }).selectOption("");
    await page.getByLabel("Search", { exact: true }).fill("PLAN");
    await until(async () => JSON.stringify(await labels()) === JSON.stringify(["Plan retro", "Plan the launch"]), "the title search applies");
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ q: "PLAN" });
    expect(await history.locator(`tr[data-run="${plan}"]`).count()).toBe(1);

    await page.getByLabel("Status", { exact: true }).selectOption("active");
    await until(async () => JSON.stringify(await labels()) === JSON.stringify(["Plan the launch"]), "status and search combine");
    await page.reload();
    await history.waitFor();
    expect(await labels()).toEqual(["Plan the launch"]);
    expect(await page.getByLabel("Status", { exact: true }).inputValue()).toBe("active");
    expect(await page.getByLabel("Search", { exact: true }).inputValue()).toBe("PLAN");
    await screenshot(page, "62-history-filtered");

    await page.getByLabel("Search", { exact: true }).fill("note");
    await until(async () => (await labels()).length === 25, "a first page of notes");
    expect((await labels()).every((l) => l.startsWith("Note "))).toBe(true);
    await page.getByRole("button", { name: "Load older runs" }).click();
    await until(async () => (await labels()).length === 27, "the older notes");
    expect(new Set(await labels()).size).toBe(27);
    await page.getByRole("button", { name: "Load older runs" }).waitFor({ state: "detached" });

    await page.getByLabel("Search", { exact: true }).fill("no such title");
    await page.getByTestId("history-empty").waitFor();
    expect(await page.getByTestId("history-empty").textContent()).toBe("No run matches the filter.");
  }, 60_000);
});
