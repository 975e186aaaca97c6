import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, scriptModel, signedInPage, signIn, until } from "./browser";
import { type DropProxy, startDropProxy } from "./drop-proxy";

/** A fresh agent with its own mock model name, so parallel tests never take each other's replies. */
async function newAgent(name: string) {
  const model = `mock-model-${Math.random().toString(36).slice(2, 10)}`;
  const guild = (await api("POST", "/api/guilds", { body: { name: `Runs ${name}` } })).json;
  const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name, model } })).json;
  return { guild, agent, model };
}

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");

/** The seqs of the transcript's rows, in page order. */
const seqs = (page: Page) => page.locator("li[data-seq]").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-seq"))));

async function storedSeqs(runId: string): Promise<number[]> {
  return (await api("GET", `/api/runs/${runId}/messages`)).json.data.map((r: { seq: number }) => r.seq);
}

/** What the console says while a read is answered 503 database.unavailable (web/src/lib/unavailable.ts). */
const RETRYING = "The database is not answering; retrying…";

/** The API's answer while the database does not answer, as the Worker sends it (decision 0026). */
const UNAVAILABLE = {
  status: 503,
  headers: { "content-type": "application/json", "retry-after": "1" },
  body: JSON.stringify({
    error: { code: "database.unavailable", message: "The database is not answering right now; try again shortly", details: { retry_after_s: 1 } },
  }),
};

describe("operator console: the run view, live", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");
  const mockUrl = inject("mockModelUrl");

  /** A routine that fires at the next minute, while the other tests run. */
  let routine: { agent: { id: string }; scheduleId: string };

  beforeAll(async () => {
    const { agent } = await newAgent("Routine");
    const schedule = await api("POST", `/api/agents/${agent.id}/schedules`, {
      body: { description: "Every minute", instruction: "Say hello", cron: "* * * * *" },
    });
    if (schedule.status !== 201) throw new Error(`schedule refused: ${schedule.text}`);
    routine = { agent, scheduleId: schedule.json.id };
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
  });
  afterAll(async () => {
    if (routine) await api("DELETE", `/api/schedules/${routine.scheduleId}`);
    await chromium?.close();
  });

  it("UI-008: a chat started in the console streams its reply live: a tool call with its arguments, its result, token deltas, then the committed row", async () => {
    const { agent, model } = await newAgent("Streamer");
    await scriptModel(mockUrl, model, [
      { tool_calls: [{ name: "note_write", arguments: { title: "plan", body: "step one" } }], reasoning: "A plan first." },
      { content: `Done. ${words(40, "w")}`, stream_chunk_ms: 100 },
    ]);
    await page.goto(`${apiUrl}/agents/${agent.id}`);
    await page.getByLabel("First message (optional)").fill("Plan, then answer");
    await page.getByRole("button", { name: "Start chat" }).click();

    const call = page.locator('[data-tool-call="note_write"]');
    await call.waitFor();
    expect(await call.locator("pre").textContent()).toContain('"title": "plan"');
    await page.locator("li[data-role=tool]", { hasText: "Result of note_write" }).waitFor();
    // Deltas render before the committed row exists.
    const draft = page.locator("li[data-draft]");
    await draft.filter({ hasText: "w3" }).waitFor();
    expect(await page.locator("li[data-role=assistant]", { hasText: "Done." }).count()).toBe(0);
    await screenshot(page, "07-run-streaming");

    const final = page.locator("li[data-role=assistant]", { hasText: "w39" });
    await final.waitFor();
    await draft.waitFor({ state: "detached" });
    await page.getByTestId("generating").waitFor({ state: "detached" });
    expect(await seqs(page)).toEqual([0, 1, 2, 3, 4]);
    // System row collapsed; reasoning collapsible; per-row cost and usage.
    expect(await page.locator("li[data-role=system] details").getAttribute("open")).toBeNull();
    expect(await page.locator("li[data-seq='2'] details.reasoning summary").textContent()).toBe("Reasoning");
    expect(await final.getByTestId("row-usage").textContent()).toMatch(/^\$0\.\d+ · [\d,]+ in · [\d,]+ out/);
    await screenshot(page, "08-run-done");

    // History lists it with its kind, status and cost.
    await page.getByRole("link", { name: "Streamer", exact: true }).click();
    const history = page.locator("table.history tbody tr").first();
    await history.waitFor();
    expect(await history.locator("td").allTextContents()).toEqual([
      "Plan, then answer",
      "Direct chat",
      "active",
      expect.stringMatching(/^\$0\.\d{4}$/),
      expect.any(String),
    ]);
    await screenshot(page, "09-agent-history");
  });

  it("UI-001: asked in a direct chat, the agent creates a routine with schedule_create; the call shows in the chat and the routine in the Routine tab", async () => {
    const { agent, model } = await newAgent("Planner");
    const args = { description: "Evening digest", instruction: "Summarise the **day**.", cron: "0 18 * * *" };
    await scriptModel(mockUrl, model, [{ tool_calls: [{ name: "schedule_create", arguments: args }] }, { content: "Your evening digest is set." }]);
    await page.goto(`${apiUrl}/agents/${agent.id}`);
    await page.getByLabel("First message (optional)").fill("Send me a digest every evening");
    await page.getByRole("button", { name: "Start chat" }).click();

    const call = page.locator('[data-tool-call="schedule_create"]');
    await call.waitFor();
    expect(await call.locator("pre").textContent()).toContain('"cron": "0 18 * * *"');
    await page.locator("li[data-role=tool]", { hasText: "Result of schedule_create" }).waitFor();
    await page.locator("li[data-role=assistant]", { hasText: "Your evening digest is set." }).waitFor();
    const schedules = (await api("GET", `/api/agents/${agent.id}/schedules`)).json.data;
    expect(schedules).toEqual([expect.objectContaining({ ...args, paused: false })]);
    expect(await page.locator("li[data-role=tool]", { hasText: "Result of schedule_create" }).textContent()).toContain(schedules[0].id);
    await screenshot(page, "13-run-schedule-create");

    await page.getByRole("link", { name: "Planner", exact: true }).click();
    await page.getByRole("navigation", { name: "Agent pages" }).getByRole("link", { name: "Routine" }).click();
    const row = page.locator('tr[data-routine="Evening digest"]');
    await row.waitFor();
    expect(await row.locator("td.trigger").textContent()).toBe("0 18 * * * (UTC)");
  });

  it("UI-009: the composer attaches images (uploaded at once, a refused file named with its reason) and sends them with an empty caption", async () => {
    const { agent, model } = await newAgent("Viewer");
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: {} })).json;
    await page.goto(`${apiUrl}/runs/${run.id}`);
    const send = page.getByRole("button", { name: "Send" });
    await send.waitFor();
    expect(await send.isDisabled()).toBe(true);

    // A 1x1 PNG, and text dressed up as one.
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
    await page.getByLabel("Attach images").setInputFiles([
      { name: "dot.png", mimeType: "image/png", buffer: png },
      { name: "notes.png", mimeType: "image/png", buffer: Buffer.from("just some text") },
    ]);
    const chips = page.getByTestId("attachment");
    await chips.filter({ hasText: "dot.png" }).and(page.locator("[data-state=ready]")).waitFor();
    const refused = chips.filter({ hasText: "notes.png" }).and(page.locator("[data-state=failed]"));
    await refused.waitFor();
    expect(await refused.textContent()).toContain("attachment.type_mismatch");
    await screenshot(page, "14-composer-images");
    await page.getByRole("button", { name: "Remove notes.png" }).click();
    await refused.waitFor({ state: "detached" });

    // No text: the image alone may be sent.
    await send.click();
    const sent = page.locator("li[data-role=user]", { hasText: "dot.png" });
    await sent.waitFor();
    expect(await sent.getByTestId("row-attachments").textContent()).toBe("Attachments: dot.png");
    expect(await sent.textContent()).toContain("(no text)");
    await chips.first().waitFor({ state: "detached" });
    await page.locator("li[data-role=assistant]", { hasText: "echo:" }).waitFor();

    const rows = (await api("GET", `/api/runs/${run.id}/messages`)).json.data as Array<{ role: string; payload: unknown; metadata: { attachments?: unknown } }>;
    const user = rows.find((r) => r.role === "user")!;
    expect(user.payload).toEqual({ role: "user", content: "" });
    expect(user.metadata.attachments).toEqual([expect.objectContaining({ filename: "dot.png", mime: "image/png", kind: "image" })]);
    // The model got the image itself.
    const { requests } = (await (await fetch(`${mockUrl}/__requests?model=${model}`)).json()) as {
      requests: Array<{ body: { messages: Array<{ content: unknown }> } }>;
    };
    expect(JSON.stringify(requests.at(-1)!.body.messages.at(-1)!.content)).toContain('"url":"data:image/png;base64,');
  });

  it("GEN-003: a message sent while the agent generates shows the busy state plainly and keeps the typed text; it sends once the agent is free", async () => {
    const { agent, model } = await newAgent("Busy");
    await scriptModel(mockUrl, model, [{ content: words(60, "slow"), stream_chunk_ms: 100 }]);
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "Take your time" } })).json;
    await page.goto(`${apiUrl}/runs/${run.id}`);
    await page.getByTestId("generating").waitFor();

    const box = page.getByLabel("Message", { exact: true });
    await box.fill("And another thing");
    await page.getByRole("button", { name: "Send" }).click();
    const busy = page.getByTestId("busy");
    await busy.waitFor();
    expect(await busy.textContent()).toContain("Busy: not sent.");
    expect(await box.inputValue()).toBe("And another thing");
    await screenshot(page, "10-run-busy");

    await page.getByTestId("generating").waitFor({ state: "detached", timeout: 20_000 });
    expect(await busy.textContent()).toContain("it has finished now");
    expect(await box.inputValue()).toBe("And another thing");
    await box.press("Control+Enter");
    await page.locator("li[data-role=user]", { hasText: "And another thing" }).waitFor();
    await until(async () => (await box.inputValue()) === "", "the sent text leaves the box");
    await busy.waitFor({ state: "detached" });
    await page.locator("li[data-role=assistant]", { hasText: "echo: And another thing" }).waitFor();
  });

  it("OP-UI-1: Cancel stops a long generation; the partial text is dropped and the run shows generation.cancelled", async () => {
    const { agent, model } = await newAgent("Canceller");
    await scriptModel(mockUrl, model, [{ content: words(200, "long"), stream_chunk_ms: 150 }]);
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "Write a lot" } })).json;
    await page.goto(`${apiUrl}/runs/${run.id}`);
    await page.locator("li[data-draft]", { hasText: "long2" }).waitFor();
    await page.getByRole("button", { name: "Cancel generation" }).click();
    await page.getByTestId("run-errors").filter({ hasText: "generation.cancelled" }).waitFor();
    await page.getByTestId("generating").waitFor({ state: "detached" });
    await page.locator("li[data-draft]").waitFor({ state: "detached" });
    expect(await page.getByRole("button", { name: "Cancel generation" }).count()).toBe(0);
    expect(await seqs(page)).toEqual([0, 1]);
    await screenshot(page, "11-run-cancelled");
    const stored = (await api("GET", `/api/runs/${run.id}`)).json;
    expect(stored.errors.map((e: { code: string }) => e.code)).toEqual(["generation.cancelled"]);
  });

  it("UI-007: a reload mid-stream shows the whole transcript exactly once, then the rest of the stream", async () => {
    const { agent, model } = await newAgent("Reloader");
    await scriptModel(mockUrl, model, [
      { tool_calls: [{ name: "note_write", arguments: { title: "a", body: "b" } }] },
      { tool_calls: [{ name: "note_list", arguments: {} }] },
      { content: words(50, "r"), stream_chunk_ms: 100 },
    ]);
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "Reload me" } })).json;
    await page.goto(`${apiUrl}/runs/${run.id}`);
    await page.locator("li[data-draft]", { hasText: "r3" }).waitFor();
    await page.reload();
    await page.locator("li[data-role=assistant]", { hasText: "r49" }).waitFor();
    await page.getByTestId("generating").waitFor({ state: "detached" });
    const shown = await seqs(page);
    expect(shown).toEqual(await storedSeqs(run.id));
    expect(shown).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(await page.locator("li[data-draft]").count()).toBe(0);
  });

  it("UI-007: after a dropped connection the stream reconnects with Last-Event-ID and shows every row once", async () => {
    const proxy: DropProxy = await startDropProxy(apiUrl);
    const second = await chromium.context.newPage();
    try {
      await signIn(second, proxy.url, inject("token"));
      const { agent, model } = await newAgent("Dropper");
      await scriptModel(mockUrl, model, [
        { tool_calls: [{ name: "note_write", arguments: { title: "x", body: "y" } }] },
        { content: words(60, "d"), stream_chunk_ms: 80 },
      ]);
      const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "Drop me" } })).json;
      const reconnects: Array<string | undefined> = [];
      second.on("request", (request) => {
        if (request.url().includes(`/api/runs/${run.id}/events`)) reconnects.push(request.headers()["last-event-id"]);
      });
      await second.goto(`${proxy.url}/runs/${run.id}`);
      await second.locator("li[data-draft]", { hasText: "d3" }).waitFor();
      proxy.dropAll();
      await second.locator("li[data-role=assistant]", { hasText: "d59" }).waitFor({ timeout: 20_000 });
      await second.getByTestId("generating").waitFor({ state: "detached" });
      expect(reconnects.length).toBeGreaterThanOrEqual(2);
      expect(reconnects[0]).toBeUndefined();
      expect(Number(reconnects[1])).toBeGreaterThanOrEqual(1);
      expect(await seqs(second)).toEqual(await storedSeqs(run.id));
    } finally {
      await second.close();
      await proxy.close();
    }
  });

  it("UI-006 / UI-003 / UI-004: a schedule wake-up is listed as such, refuses messages (text kept) until Resume, then accepts them", async () => {
    // The routine made in beforeAll fires at the turn of the minute; its one-shot run completes.
    const { agent, scheduleId } = routine;
    let runId = "";
    await until(
      async () => {
        const fired = (await api("GET", `/api/schedules/${scheduleId}/runs`)).json.data as Array<{ id: string; status: string }>;
        runId = fired.find((r) => r.status === "completed")?.id ?? "";
        return runId !== "";
      },
      "the routine's wake-up completes",
      80_000,
    );
    // Paused, not deleted: a deleted routine's runs lose their schedule_id.
    await api("POST", `/api/schedules/${scheduleId}/pause`);

    await page.goto(`${apiUrl}/agents/${agent.id}`);
    const listed = page.locator(`tr[data-run="${runId}"]`);
    await listed.waitFor();
    expect(await listed.locator("td").nth(0).textContent()).toBe("Schedule wake-up");
    expect(await listed.locator("td").nth(2).textContent()).toBe("completed");
    await listed.getByRole("link", { name: "Schedule wake-up" }).click();

    await page.getByTestId("run-status").filter({ hasText: "completed" }).waitFor();
    expect(await page.locator(".run-head").textContent()).toContain(scheduleId);
    const box = page.getByLabel("Message", { exact: true });
    await box.fill("Are you there?");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByTestId("refused").filter({ hasText: "run.not_accepting_messages" }).waitFor();
    expect(await box.inputValue()).toBe("Are you there?");

    await page.getByRole("button", { name: "Resume run" }).click();
    await page.getByTestId("run-status").filter({ hasText: "active" }).waitFor();
    await page.getByText("Run resumed: it accepts messages again.").waitFor();
    await page.getByTestId("refused").waitFor({ state: "detached" });
    expect(await page.getByRole("button", { name: "Resume run" }).count()).toBe(0);
    await screenshot(page, "12-run-resumed");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator("li[data-role=assistant]", { hasText: "echo: Are you there?" }).waitFor();
    await until(async () => (await box.inputValue()) === "", "the sent text leaves the box");
  }, 120_000);

  // Every read of the run (the run, its rows, its event stream) is answered 503 by the page's
  // own route, as the Worker answers while Postgres does not (decision 0026; the e2e
  // postgres-freeze test freezes it for real, the shared stack's database stays up here).
  it("HARDEN-2: while the API answers the run's reads 503 database.unavailable, the run view says the database is not answering, at open and on its stream's reconnect, asks again each Retry-After, and recovers once answers come", async () => {
    const proxy = await startDropProxy(apiUrl);
    const second = await chromium.context.newPage();
    try {
      await signIn(second, proxy.url, inject("token"));
      const { agent } = await newAgent("Patient");
      const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "Hello" } })).json;
      const ofRun = (url: URL) => url.pathname.startsWith(`/api/runs/${run.id}`);
      const refused: number[] = [];
      const unavailable = () =>
        second.route(ofRun, (route) => {
          refused.push(Date.now());
          return route.fulfill(UNAVAILABLE);
        });
      const notice = second.getByText(RETRYING);

      await unavailable();
      await second.goto(`${proxy.url}/runs/${run.id}`);
      await notice.waitFor();
      await second.unroute(ofRun);
      await second.locator("li[data-role=assistant]", { hasText: "echo: Hello" }).waitFor();
      await notice.waitFor({ state: "detached" });
      await second.locator(".live[data-connection=open]").waitFor();

      // The stream is cut while the API answers 503: its reconnect (and the reload before it) is refused.
      await unavailable();
      refused.length = 0;
      proxy.dropAll();
      await notice.waitFor();
      expect(await second.locator("li[data-role=assistant]", { hasText: "echo: Hello" }).count(), "the transcript stays").toBe(1);
      await screenshot(second, "40-run-database-unavailable");
      // It keeps asking, once per Retry-After (1 s): neither in a tight loop nor never.
      await until(async () => refused.length >= 3, "the view asks again", 10_000);
      const gaps = refused.slice(1).map((t, i) => t - refused[i]!);
      expect(Math.min(...gaps), `waits between reads: ${gaps}`).toBeGreaterThanOrEqual(800);

      // Meanwhile the run moves on; once the API answers, the view catches up and the notice goes.
      expect((await api("POST", `/api/runs/${run.id}/messages`, { body: { content: "Still there?" } })).status).toBe(202);
      await second.unroute(ofRun);
      await notice.waitFor({ state: "detached" });
      await second.locator(".live[data-connection=open]").waitFor();
      await second.locator("li[data-role=assistant]", { hasText: "echo: Still there?" }).waitFor();
      await second.getByTestId("generating").waitFor({ state: "detached" });
      expect(await seqs(second)).toEqual(await storedSeqs(run.id));
    } finally {
      await second.close();
      await proxy.close();
    }
  });
});
