import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, signedInPage, until } from "./browser";
import { type DropProxy, startDropProxy } from "./drop-proxy";

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

/** The seqs of the transcript's rows, in page order. */
const seqs = (page: Page) => page.locator("li[data-seq]").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-seq"))));

async function storedSeqs(runId: string): Promise<number[]> {
  return (await api("GET", `/api/runs/${runId}/messages`)).json.data.map((r: { seq: number }) => r.seq);
}

/**
 * The run view while the API answers its reads 503 database.unavailable: every read of the
 * run (the run, its rows, its event stream) is answered so by the browser's own route, as
 * the Worker answers while Postgres does not (test/e2e/postgres-freeze.test.ts freezes it
 * for real; here the stack's database stays up for the other test files).
 */
describe("HARDEN-2: the console while the database does not answer", () => {
  let chromium: Chromium;
  let page: Page;
  let proxy: DropProxy;
  const apiUrl = inject("apiUrl");

  beforeAll(async () => {
    // The stream goes through a proxy that can cut it, so it reconnects while the API answers 503.
    proxy = await startDropProxy(apiUrl);
    ({ chromium, page } = await signedInPage(proxy.url, inject("token")));
  });
  afterAll(async () => {
    await chromium?.close();
    await proxy?.close();
  });

  it("HARDEN-2: the run view says the database is not answering while its stream's reconnect and reloads answer 503, asks again each Retry-After, and recovers once answers come", async () => {
    const model = `mock-model-${Math.random().toString(36).slice(2, 10)}`;
    const guild = (await api("POST", "/api/guilds", { body: { name: "Unavailable" } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Patient", model } })).json;
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "Hello" } })).json;
    await page.goto(`${proxy.url}/runs/${run.id}`);
    await page.locator("li[data-role=assistant]", { hasText: "echo: Hello" }).waitFor();
    await page.locator(".live[data-connection=open]").waitFor();

    const ofRun = (url: URL) => url.pathname.startsWith(`/api/runs/${run.id}`);
    const refused: number[] = [];
    await page.route(ofRun, (route) => {
      refused.push(Date.now());
      return route.fulfill(UNAVAILABLE);
    });
    proxy.dropAll();
    const notice = page.getByText(RETRYING);
    await notice.waitFor();
    expect(await page.locator("li[data-role=assistant]", { hasText: "echo: Hello" }).count(), "the transcript stays").toBe(1);
    await screenshot(page, "40-run-database-unavailable");
    // It keeps asking, once per Retry-After (1 s), not in a tight loop nor never.
    await until(async () => refused.length >= 3, "the view asks again", 10_000);
    const gaps = refused.slice(1).map((t, i) => t - refused[i]!);
    expect(Math.min(...gaps), `waits between reads: ${gaps}`).toBeGreaterThanOrEqual(800);

    // Meanwhile the run moves on; once the API answers, the view catches up and the notice goes.
    expect((await api("POST", `/api/runs/${run.id}/messages`, { body: { content: "Still there?" } })).status).toBe(202);
    await page.unroute(ofRun);
    await notice.waitFor({ state: "detached" });
    await page.locator(".live[data-connection=open]").waitFor();
    await page.locator("li[data-role=assistant]", { hasText: "echo: Still there?" }).waitFor();
    await page.getByTestId("generating").waitFor({ state: "detached" });
    expect(await seqs(page)).toEqual(await storedSeqs(run.id));
  });

  it("HARDEN-2: opened while the API answers 503, the run view says so and loads once answers come", async () => {
    const model = `mock-model-${Math.random().toString(36).slice(2, 10)}`;
    const guild = (await api("POST", "/api/guilds", { body: { name: "Unavailable at open" } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Waiting", model } })).json;
    const run = (await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "Hi" } })).json;
    const ofRun = (url: URL) => url.pathname.startsWith(`/api/runs/${run.id}`);
    await page.route(ofRun, (route) => route.fulfill(UNAVAILABLE));
    await page.goto(`${proxy.url}/runs/${run.id}`);
    const notice = page.getByText(RETRYING);
    await notice.waitFor();
    await page.unroute(ofRun);
    await page.locator("li[data-role=assistant]", { hasText: "echo: Hi" }).waitFor();
    await notice.waitFor({ state: "detached" });
    await page.locator(".live[data-connection=open]").waitFor();
  });
});
