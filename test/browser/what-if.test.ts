import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, scriptModel, signedInPage, until } from "./browser";

const modelName = () => `mock-model-${Math.random().toString(36).slice(2, 10)}`;

describe("operator console: what-if replay", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");
  const mockUrl = inject("mockModelUrl");

  beforeAll(async () => ({ chromium, page } = await signedInPage(apiUrl, inject("token"))));
  afterAll(async () => chromium?.close());

  it("EXACT-003: two variants of a recorded call on the mock model, side by side with tokens, cost, latency and a diff against the recorded answer", async () => {
    const recorded = modelName();
    const guild = (await api("POST", "/api/guilds", { body: { name: "What if" } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Replayer", model: recorded } })).json;
    await scriptModel(mockUrl, recorded, [{ content: "The sky is blue today.", usage: { prompt_tokens: 120, completion_tokens: 6 } }]);
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "What colour is the sky?" } })).json;
    await until(async () => (await api("GET", `/api/runs/${run.id}`)).json.generating === false, "the reply is written");
    const before = (await api("GET", `/api/runs/${run.id}/messages`)).json.data;

    const [grey, tools] = [modelName(), modelName()];
    await scriptModel(mockUrl, grey, [{ content: "The sky is grey today.", usage: { prompt_tokens: 1000, completion_tokens: 100 } }]);
    await scriptModel(mockUrl, tools, [
      {
        content: "The sky is blue today.",
        tool_calls: [{ name: "note_read", arguments: { title: "sky" } }],
        usage: { prompt_tokens: 1000, completion_tokens: 20 },
      },
    ]);

    await page.goto(`${apiUrl}/runs/${run.id}`);
    const row = page.locator("li[data-role=assistant]", { hasText: "The sky is blue today." });
    await row.waitFor();
    await row.locator("details.prompt-replay > summary").click();
    await row.locator("details.what-if > summary").click();
    const form = row.getByRole("form", { name: "Variants" });
    await form.getByLabel("Model").fill(grey);
    await form.getByLabel("Temperature").fill("0.2");
    await form.getByRole("button", { name: "Add variant" }).click();
    const second = form.locator("fieldset").nth(1);
    await second.getByLabel("Model").fill(tools);
    await second.getByLabel("Thinking level").selectOption("high");
    await second.getByLabel("System prompt").fill("Answer in one sentence.");
    await form.getByRole("button", { name: "Run variants" }).click();

    const answers = row.getByRole("list", { name: "Answers side by side" });
    const first = answers.getByRole("listitem", { name: "Variant 1" });
    const other = answers.getByRole("listitem", { name: "Variant 2" });
    await first.waitFor();
    expect(await answers.getByRole("listitem", { name: "Recorded answer" }).textContent()).toContain("The sky is blue today.");
    // The word that changed is marked removed and added; the rest is kept.
    expect(await first.locator("del").allTextContents()).toEqual(["blue "]);
    expect(await first.locator("ins").allTextContents()).toEqual(["grey "]);
    expect(await first.getByTestId("variant-usage").textContent()).toMatch(/^1,000 in · 100 out · \$0\.\d+ · \d+\.\d s$/);
    expect(await first.textContent()).toContain(`${grey} · temperature 0.2`);
    // Same text, and a tool call the recorded answer did not make.
    expect(await other.locator("ins, del").count()).toBe(0);
    expect(await other.locator("[data-call-change=added]").textContent()).toContain("note_read");
    expect(await other.textContent()).toContain("thinking high · system prompt changed");
    await answers.scrollIntoViewIfNeeded();
    await screenshot(page, "what-if-variants");

    // The run itself is unchanged; the variants are listed apart, and shown again after a reload.
    expect((await api("GET", `/api/runs/${run.id}/messages`)).json.data).toEqual(before);
    const seq = before.find((r: { role: string }) => r.role === "assistant").seq;
    expect((await api("GET", `/api/runs/${run.id}/messages/${seq}/variants`)).json.data).toHaveLength(2);
    await page.reload();
    await row.locator("details.prompt-replay > summary").click();
    await row.locator("details.what-if > summary").click();
    await answers.getByRole("listitem", { name: "Variant 2" }).waitFor();
    expect(await answers.getByRole("listitem", { name: "Variant 1" }).locator("ins").allTextContents()).toEqual(["grey "]);
  });
});
