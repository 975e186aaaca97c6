import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, scriptModel, signedInPage, until } from "./browser";

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

  it("REPO-022 / OP-UI-6: a coding run's real diff opens as one collapsible section per file, additions and removals marked", async (ctx) => {
    const model = `mock-model-${Math.random().toString(36).slice(2, 10)}`;
    const guild = (await api("POST", "/api/guilds", { body: { name: "Diffs" } })).json;
    const coder = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Coder", model, coding: true } })).json;
    // A repository made in the box, its start checkpoint taken before the edit; the generation's end checkpoints it.
    const command = [
      "if ! test -x /usr/local/bin/guilds-code; then echo NO_GUILDS_CODE; exit 0; fi",
      "set -e; mkdir -p /home/agent/repos/site; cd /home/agent/repos/site; git init -q -b main",
      "printf 'one\\ntwo\\n' > notes.txt; git add notes.txt; git -c user.name=T -c user.email=t@example.com commit -qm init",
      '/usr/local/bin/guilds-code checkpoint --run "$GUILD_RUN_ID" --kind start > /dev/null',
      "printf 'one\\n2\\n' > notes.txt",
    ].join("; ");
    await scriptModel(inject("mockModelUrl"), model, [{ tool_calls: [{ name: "shell", arguments: { command } }] }, { content: "changed" }]);
    const run = (await api("POST", `/api/agents/${coder.id}/runs`, { body: { message: "change it" } })).json;
    await until(async () => (await api("GET", `/api/runs/${run.id}`)).json.generating === false, "the generation ends", 120_000);
    const rows = (await api("GET", `/api/runs/${run.id}/messages`)).json.data as Array<{ role: string; payload: { content?: unknown } }>;
    // An image without the git tooling cannot make a diff: nothing to show here then.
    if (JSON.stringify(rows.find((r) => r.role === "tool")?.payload ?? "").includes("NO_GUILDS_CODE")) ctx.skip();

    await page.goto(`${apiUrl}/runs/${run.id}`);
    const repo = page.getByTestId("repo-site");
    await repo.waitFor();
    expect(await repo.getByTestId("diffstat").textContent()).toBe("1 file +1 −1");
    await repo.getByRole("button", { name: "Show diff" }).click();
    const file = repo.getByTestId("diff-file");
    await file.waitFor({ timeout: 60_000 });
    expect(await file.count()).toBe(1);
    expect(await file.locator("summary").textContent()).toBe("notes.txt modified +1 −1");
    expect(await file.locator(".diff-remove").allTextContents()).toEqual(["-two"]);
    expect(await file.locator(".diff-add").allTextContents()).toEqual(["+2"]);
    expect(await repo.getByTestId("diff-truncated").count()).toBe(0);
    await screenshot(page, "run-changes-diff");
    // Collapsing the file hides its lines.
    await file.locator("summary").click();
    expect(await file.locator(".diff-lines").isVisible()).toBe(false);
  }, 240_000);

  it("REPO-019: a run that recorded no repository shows no Changes section", async () => {
    const plain = (await api("POST", `/api/agents/${agentId}/runs`, { body: {} })).json;
    await page.goto(`${apiUrl}/runs/${plain.id}`);
    await page.getByTestId("run-status").waitFor();
    expect(await page.getByTestId("run-changes").count()).toBe(0);
  });
});
