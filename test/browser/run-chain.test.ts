import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, scriptModel, signedInPage, until } from "./browser";

const words = (n: number) => "word ".repeat(n).trim();

/** Waits until the run has settled (its agent no longer generates for it). */
async function settled(runId: string) {
  await until(async () => (await api("GET", `/api/runs/${runId}`)).json.generating === false, `run ${runId} settled`, 45_000);
}

describe("operator console: following a run chain", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");
  const mockUrl = inject("mockModelUrl");

  beforeAll(async () => {
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
  });
  afterAll(async () => {
    await chromium?.close();
  });

  it("CHAIN-011 / OP-UI-2: the run view follows run.continued to the new run, links both ways, and a 409 on send offers the latest run", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: "Chains" } })).json;
    const model = `mock-model-${Math.random().toString(36).slice(2, 10)}`;
    // A coding agent's first prompt, measured, sizes a cap that one long reply takes past 70%.
    const probe = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Probe", model, coding: true } })).json;
    await scriptModel(mockUrl, model, [{ content: "measured" }]);
    const probed = (await api("POST", `/api/agents/${probe.id}/runs`, { body: { message: "hi" } })).json;
    await settled(probed.id);
    const base = (await api("GET", `/api/runs/${probed.id}/messages`)).json.data.find((r: { role: string }) => r.role === "assistant").metadata.projection
      .prompt_tokens_counted as number;
    const cap = Math.max(1000, Math.ceil(base * 2));

    const coderModel = `${model}-coder`;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Coder", model: coderModel, coding: true, max_input_tokens: cap } }))
      .json;
    await scriptModel(mockUrl, coderModel, [
      // Slow enough for the page to be watching when the hand-off comes.
      { content: words(Math.ceil(cap * 0.3)), tool_calls: [{ name: "note_list", arguments: {} }], delay_ms: 4000 },
      { content: "## Goal\nFinish the parser\n## Remaining\ntests" },
      { content: "Picking up from the hand-off." },
    ]);
    const first = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "Build the parser" } })).json;
    await page.goto(`${apiUrl}/runs/${first.id}`);
    await page.locator("li[data-role=user]", { hasText: "Build the parser" }).waitFor();

    // The stream moves to the continuation on its own (CHAIN-011).
    await page.waitForURL((url) => url.pathname.startsWith("/runs/") && !url.pathname.endsWith(first.id), { timeout: 30_000 });
    const nextId = new URL(page.url()).pathname.split("/").at(-1)!;
    const from = page.getByTestId("continued-from");
    await from.waitFor();
    expect(await from.textContent()).toContain("run 2 of its chain");
    await page.locator("li[data-role=assistant]", { hasText: "Picking up from the hand-off." }).waitFor();
    expect(await page.locator("li[data-role=user]").first().textContent()).toContain("Continuation:");
    await screenshot(page, "chain-01-continuation");

    // Back to the run it continued: it names its continuation.
    await from.getByRole("link", { name: "the previous run" }).click();
    await page.waitForURL((url) => url.pathname.endsWith(first.id));
    const into = page.getByTestId("continued-in");
    await into.waitFor();
    expect(await into.getByRole("link").getAttribute("href")).toBe(`/runs/${nextId}`);
    expect(await page.getByTestId("run-status").textContent()).toBe("completed");
    // A continued run cannot be resumed (CHAIN-021): no button offers it.
    expect(await page.getByRole("button", { name: "Resume run" }).count()).toBe(0);

    // A message there is refused with the latest run offered (CHAIN-018).
    await page.getByLabel("Message", { exact: true }).fill("one more thing");
    await page.getByRole("button", { name: "Send" }).click();
    const refused = page.getByTestId("refused");
    await refused.waitFor();
    expect(await refused.textContent()).toContain("run.continued");
    await screenshot(page, "chain-02-refused");
    await refused.getByRole("link", { name: "Go to the latest run" }).click();
    await page.waitForURL((url) => url.pathname.endsWith(nextId));
    await page.getByTestId("continued-from").waitFor();
    await settled(nextId);
  });
});
