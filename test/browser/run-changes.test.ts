import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, signedInPage } from "./browser";

/**
 * The run page's Changes section (OP-UI-6). The run's metadata.repos is written as an end
 * checkpoint writes it; this run has no checkpoint refs in any box, so the diff it asks for
 * is a clear error here (no engine: sandbox.unavailable; a box: its work tree or checkpoint is
 * missing, or guilds-code failed there). The diff of a real coding run is covered end to end
 * against the local forge in real containers.
 */
describe("console: a run's changes", () => {
  let chromium: Chromium;
  let page: Page;
  let runId: string;
  let agentId: string;
  const apiUrl = inject("apiUrl");
  const repos = [
    {
      name: "web-app",
      branch: "feature/login",
      head_sha: "a".repeat(40),
      start_sha: "b".repeat(40),
      end_sha: "c".repeat(40),
      files_changed: 3,
      insertions: 42,
      deletions: 7,
    },
  ];

  beforeAll(async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: "Changes" } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Coder", coding: true } })).json;
    agentId = agent.id;
    runId = (await api("POST", `/api/agents/${agent.id}/runs`, { body: {} })).json.id;
    const client = new pg.Client({ connectionString: inject("stackDatabaseUrl") });
    await client.connect();
    try {
      await client.query(`update runs set metadata = metadata || $2::jsonb where id = $1`, [runId, JSON.stringify({ repos })]);
    } finally {
      await client.end();
    }
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
  }, 120_000);
  afterAll(async () => {
    await chromium?.close();
  });

  it("OP-UI-6 / REPO-019 / SBX-039: the run page lists each repository with its diffstat, and a diff that cannot be made says why", async () => {
    await page.goto(`${apiUrl}/runs/${runId}`);
    const section = page.getByTestId("run-changes");
    await section.waitFor();
    expect(await section.locator("summary").first().textContent()).toContain("1 repository, 3 files");
    const repo = page.getByTestId("repo-web-app");
    expect(await repo.getByTestId("diffstat").textContent()).toBe("3 files +42 −7");
    expect(await repo.textContent()).toContain("feature/login");
    expect(await repo.textContent()).toContain("bbbbbbb..ccccccc");

    await repo.getByRole("button", { name: "Show diff" }).click();
    const error = repo.getByTestId("diff-error");
    // A box may have to start first (a standard box on a busy machine).
    await error.waitFor({ timeout: 120_000 });
    const text = (await error.textContent()) ?? "";
    expect(text).toContain("Could not load the diff of web-app");
    expect(text).toMatch(/\((sandbox\.unavailable|repository\.missing|repository\.checkpoint_missing|repository\.diff_failed)\)$/);
    expect(await repo.getByRole("button", { name: "Hide diff" }).getAttribute("aria-expanded")).toBe("true");
    // SBX-039: where a box could start, the diff woke it as the CLI tab does, idle timer running.
    if (!text.includes("sandbox.unavailable")) {
      const state = (await api("GET", `/api/agents/${agentId}/sandbox`)).json;
      expect(state).toMatchObject({ box: "standard", status: "running" });
      expect(Date.parse(state.idle_deadline)).toBeGreaterThan(Date.now());
    }
    await screenshot(page, "run-changes");

    await repo.getByRole("button", { name: "Hide diff" }).click();
    await error.waitFor({ state: "detached" });
  }, 180_000);

  it("REPO-019: a run that recorded no repository shows no Changes section", async () => {
    const plain = (await api("POST", `/api/agents/${agentId}/runs`, { body: {} })).json;
    await page.goto(`${apiUrl}/runs/${plain.id}`);
    await page.getByTestId("run-status").waitFor();
    expect(await page.getByTestId("run-changes").count()).toBe(0);
  });
});
