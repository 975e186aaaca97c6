import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Page, screenshot, signedInPage, until } from "./browser";

/** "2026-05-01 08:00 UTC", as the Routine tab shows a time in UTC. */
const utc = (iso: string) => `${new Date(iso).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** Wall-clock minutes after midnight of an instant in a zone. */
function minutesIn(iso: string, zone: string): number {
  const [h, m] = new Date(iso).toLocaleTimeString("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).split(":");
  return Number(h) * 60 + Number(m);
}

/** The Routine tab: create with cron or window, field errors, preview, pause/resume, runs by instruction, delete. */
describe("operator console: the agent's Routine tab", () => {
  let chromium: Chromium;
  let page: Page;
  let db: pg.Client;
  const apiUrl = inject("apiUrl");
  const suffix = Math.random().toString(36).slice(2, 8);
  let guild: { id: string; name: string };
  let agent: { id: string; name: string };
  const row = (description: string) => page.locator(`tr[data-routine="${description}"]`);
  const scheduleNamed = async (description: string) =>
    ((await api("GET", `/api/agents/${agent.id}/schedules`)).json.data as Array<Record<string, any>>).find((s) => s.description === description)!;
  /** Brings a routine's wake-up to a few seconds from now, straight in Postgres (the wake-up the agent's alarm is armed at). */
  const dueIn = (scheduleId: string, seconds: number) =>
    db.query(`update schedules set next_run_at = now() + make_interval(secs => $2) where id = $1`, [scheduleId, seconds]);
  const completedRuns = async (scheduleId: string) =>
    ((await api("GET", `/api/schedules/${scheduleId}/runs`)).json.data as Array<{ id: string; status: string; instruction_hash: string }>).filter(
      (r) => r.status === "completed",
    );

  beforeAll(async () => {
    guild = (await api("POST", "/api/guilds", { body: { name: `Routines ${suffix}` } })).json;
    agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: `Waker ${suffix}`, model: `mock-model-r${suffix}` } })).json;
    db = new pg.Client({ connectionString: inject("stackDatabaseUrl") });
    await db.connect();
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
  });
  afterAll(async () => {
    await db?.end();
    await chromium?.close();
  });

  it("UI-002: creates a cron routine and a random-window routine in the Routine tab; a 422 shows beside the field it names; the list shows triggers and next wake-ups in local time and UTC", async () => {
    await page.goto(`${apiUrl}/agents/${agent.id}`);
    await page.getByRole("navigation", { name: "Agent pages" }).getByRole("link", { name: "Routine" }).click();
    await page.getByRole("heading", { name: `Routine of Waker ${suffix}`, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/agents/${agent.id}/routines`);
    await page.getByText("No routine yet.").waitFor();

    await page.getByRole("button", { name: "New routine" }).click();
    // The form opens with the description focused.
    await until(async () => (await page.evaluate("document.activeElement?.getAttribute('name')")) === "description", "the description has focus");
    await page.getByLabel("Description", { exact: true }).fill("Morning news");
    await page.getByLabel("Instruction", { exact: true }).fill("Read the news and **summarise** it.");
    await page.getByLabel("Cron expression (UTC)").fill("0 8 * * * *");
    await page.getByRole("button", { name: "Create routine" }).click();
    const cronError = page.locator('[data-field="cron"] .field-error');
    await cronError.waitFor();
    expect(await cronError.textContent()).toContain("5 fields");
    expect(await page.getByLabel("Cron expression (UTC)").getAttribute("aria-describedby")).toContain("routine-new-cron-error");
    expect(await page.locator('[data-field="description"] .field-error').count()).toBe(0);
    await screenshot(page, "20-routine-cron-field-error", { fullPage: true });

    await page.getByLabel("Cron expression (UTC)").fill("0 8 * * 1-5");
    await page.getByRole("button", { name: "Create routine" }).click();
    await row("Morning news").waitFor();
    const morning = await scheduleNamed("Morning news");
    expect(morning).toMatchObject({ cron: "0 8 * * 1-5", wake_window: null, paused: false, instruction: "Read the news and **summarise** it." });
    expect(await row("Morning news").locator("td.trigger").textContent()).toBe("0 8 * * 1-5 (UTC)");
    expect(await row("Morning news").getByTestId("next-wake-up").textContent()).toContain(utc(morning.next_run_at));
    expect(await row("Morning news").getByTestId("next-wake-up").locator("time").getAttribute("datetime")).toBe(morning.next_run_at);

    // A random window; the trigger is chosen from the keyboard (arrow keys move between the radios).
    await page.getByRole("button", { name: "New routine" }).click();
    await page.getByLabel("Description", { exact: true }).fill("Wander");
    await page.getByLabel("Instruction", { exact: true }).fill("Look around the workspace.");
    await page.getByLabel("Cron (UTC)").focus();
    await page.keyboard.press("ArrowDown");
    expect(await page.getByLabel("Random times in a daily window").isChecked()).toBe(true);
    await page.getByLabel("Time zone").fill("Mars/Olympus");
    await page.getByLabel("Window start").fill("09:00");
    await page.getByLabel("Window end").fill("10:00");
    await page.getByLabel("Max wake-ups").fill("20");
    await page.getByRole("button", { name: "Create routine" }).click();
    const zoneError = page.locator('[data-field="wake_window.timezone"] .field-error');
    await zoneError.waitFor();
    expect(await zoneError.textContent()).toContain("IANA time zone");
    expect(await page.locator('[data-field="wake_window.max_wakes"] .field-error').textContent()).toContain("at least 5 minutes per wake-up");
    expect(await page.getByLabel("Time zone").getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator('[data-field="wake_window.start"] .field-error').count()).toBe(0);
    await screenshot(page, "21-routine-window-field-errors", { fullPage: true });

    await page.getByLabel("Time zone").fill("Europe/Berlin");
    await page.getByLabel("Max wake-ups").fill("3");
    await page.getByRole("button", { name: "Create routine" }).click();
    await row("Wander").waitFor();
    const wander = await scheduleNamed("Wander");
    expect(wander).toMatchObject({ cron: null, wake_window: { timezone: "Europe/Berlin", start: "09:00", end: "10:00", max_wakes: 3 }, window_fires: 0 });
    expect(await row("Wander").locator("td.trigger").textContent()).toBe("random 3× between 09:00 and 10:00 (Europe/Berlin)");
    expect(await row("Wander").getByTestId("next-wake-up").textContent()).toContain(utc(wander.next_run_at));
    expect(await row("Wander").getByTestId("last-wake-up").textContent()).toBe("never");
    await screenshot(page, "22-routines-list");
  });

  it("SCHED-011: previews the next wake-ups on demand; pauses a routine and Resume recomputes next_run_at from now", async () => {
    await page.goto(`${apiUrl}/agents/${agent.id}/routines`);
    const toggle = row("Wander").getByRole("button", { name: "Wake-ups & runs" });
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await page.getByRole("button", { name: "Preview next wake-ups" }).click();
    const items = page.getByTestId("preview").locator("li");
    await items.first().waitFor();
    expect(await items.count()).toBe(5);
    const planned = await items.locator("time").evaluateAll((els) => els.map((e) => e.getAttribute("datetime")!));
    for (const iso of planned) {
      const minutes = minutesIn(iso, "Europe/Berlin");
      expect(minutes).toBeGreaterThanOrEqual(9 * 60);
      expect(minutes).toBeLessThan(10 * 60);
      expect(new Date(iso).getTime()).toBeGreaterThan(Date.now());
    }
    expect(await items.first().textContent()).toContain("Europe/Berlin");
    await screenshot(page, "23-routine-preview", { fullPage: true });
    await toggle.click();

    const morning = await scheduleNamed("Morning news");
    await row("Morning news").getByRole("button", { name: "Pause Morning news" }).click();
    await row("Morning news").getByTestId("routine-state").filter({ hasText: "paused" }).waitFor();
    expect((await api("GET", `/api/schedules/${morning.id}`)).json.paused).toBe(true);
    // A stale plan (as after a long pause) stays on display while paused...
    await db.query(`update schedules set next_run_at = '2001-01-01T08:00:00Z' where id = $1`, [morning.id]);
    await page.getByRole("button", { name: "Refresh" }).click();
    await row("Morning news").getByTestId("next-wake-up").filter({ hasText: "2001-01-01 08:00 UTC" }).waitFor();
    expect(await row("Morning news").getByTestId("next-wake-up").textContent()).toContain("not while paused");
    await screenshot(page, "24-routine-paused");

    // ...and Resume plans afresh from now: the next weekday 08:00 UTC, not 2001.
    await row("Morning news").getByRole("button", { name: "Resume Morning news" }).click();
    await row("Morning news").getByTestId("routine-state").filter({ hasText: "active" }).waitFor();
    const resumed = (await api("GET", `/api/schedules/${morning.id}`)).json;
    expect(resumed.paused).toBe(false);
    expect(new Date(resumed.next_run_at).getTime()).toBeGreaterThan(Date.now());
    expect(resumed.next_run_at).toBe(morning.next_run_at);
    expect(await row("Morning news").getByTestId("next-wake-up").textContent()).toContain(utc(resumed.next_run_at));
  });

  it("UI-004: lists a routine's runs with links, the instruction hash shortened, and runs fired with an older instruction marked; the guild's routines switch", async () => {
    const morning = await scheduleNamed("Morning news");

    // OP-UI-5: the guild's switch, off: the Routine tab says nothing fires.
    await page.goto(`${apiUrl}/guilds/${guild.id}`);
    const routinesSwitch = page.getByRole("switch", { name: "Routines enabled" });
    expect(await routinesSwitch.isChecked()).toBe(true);
    await routinesSwitch.click();
    await page.getByText("Routines are off.").waitFor();
    expect((await api("GET", `/api/guilds/${guild.id}`)).json.routines_enabled).toBe(false);
    await screenshot(page, "25-guild-routines-off");
    await page.getByRole("link", { name: `Waker ${suffix}` }).click();
    await page.getByRole("link", { name: "Routine", exact: true }).click();
    await page.getByTestId("routines-off").waitFor();

    // On again, with the routine due in three seconds: the switch re-arms the agent, which wakes up.
    await page.goto(`${apiUrl}/guilds/${guild.id}`);
    await dueIn(morning.id, 3);
    await page.getByRole("switch", { name: "Routines enabled" }).click();
    await page.getByText("Routines are on.").waitFor();
    await until(async () => (await completedRuns(morning.id)).length === 1, "the routine's first wake-up completes", 30_000);
    const [first] = await completedRuns(morning.id);
    expect(first!.instruction_hash).toBe(morning.instruction_hash);

    await page.goto(`${apiUrl}/agents/${agent.id}/routines`);
    expect(await row("Morning news").getByTestId("last-wake-up").textContent()).toContain("UTC");
    await row("Morning news").getByRole("button", { name: "Wake-ups & runs" }).click();
    const runRow = (id: string) => page.getByTestId("routine-runs").locator(`tr[data-run="${id}"]`);
    await runRow(first!.id).waitFor();
    expect(await runRow(first!.id).locator("code.hash").textContent()).toBe(morning.instruction_hash.slice(0, 12));
    expect(await runRow(first!.id).textContent()).toContain("current");

    // A new instruction: the run fired with the old one is marked.
    // The form takes the focus as it opens, not a frame later (when the fill below could
    // already be typing, and its text would land in the description).
    const focusedOnOpen = await page.evaluate(`(async () => {
      [...document.querySelectorAll('tr[data-routine="Morning news"] button')].find((b) => b.textContent === "Edit").click();
      for (let i = 0; i < 50 && !document.querySelector("tr.expanded form"); i++) await Promise.resolve();
      return document.activeElement?.getAttribute("name");
    })()`);
    expect(focusedOnOpen).toBe("description");
    await page.locator("tr.expanded").getByLabel("Instruction", { exact: true }).fill("Read the news; list three headlines.");
    await page.getByRole("button", { name: "Save routine" }).click();
    await runRow(first!.id).filter({ hasText: "older instruction" }).waitFor();
    const edited = await scheduleNamed("Morning news");
    expect(edited.instruction_hash).not.toBe(morning.instruction_hash);
    expect(edited.next_run_at).toBe(morning.next_run_at);

    // A second wake-up fires with the new instruction (the switch off and on re-arms the agent).
    await dueIn(morning.id, 2);
    await api("PATCH", `/api/guilds/${guild.id}`, { body: { routines_enabled: false } });
    await api("PATCH", `/api/guilds/${guild.id}`, { body: { routines_enabled: true } });
    await until(async () => (await completedRuns(morning.id)).length === 2, "the routine's second wake-up completes", 30_000);
    const second = (await completedRuns(morning.id)).find((r) => r.id !== first!.id)!;
    expect(second.instruction_hash).toBe(edited.instruction_hash);
    await page.getByRole("button", { name: "Refresh" }).first().click();
    await runRow(second.id).waitFor();
    expect(await runRow(second.id).getAttribute("data-older")).toBeNull();
    expect(await runRow(second.id).locator("code.hash").textContent()).toBe(edited.instruction_hash.slice(0, 12));
    expect(await runRow(first!.id).getAttribute("data-older")).toBe("true");
    await screenshot(page, "26-routine-runs-older-instruction", { fullPage: true });

    // The run view names its routine; the link leads back to it, opened.
    await runRow(first!.id).getByRole("link", { name: "Schedule wake-up" }).click();
    await page.getByTestId("run-status").waitFor();
    expect(await page.locator(".run-head").textContent()).toContain(morning.instruction_hash.slice(0, 12));
    await page.getByRole("link", { name: morning.id }).click();
    await page.getByRole("heading", { name: `Routine of Waker ${suffix}` }).waitFor();
    await page.getByTestId("routine-runs").locator(`tr[data-run="${second.id}"]`).waitFor();
  }, 90_000);

  it("deletes a routine after a confirmation; Cancel keeps it", async () => {
    await page.goto(`${apiUrl}/agents/${agent.id}/routines`);
    const wander = await scheduleNamed("Wander");
    await row("Wander").getByRole("button", { name: "Delete…" }).click();
    await row("Wander").getByRole("button", { name: "Cancel" }).click();
    expect((await api("GET", `/api/schedules/${wander.id}`)).status).toBe(200);
    await row("Wander").getByRole("button", { name: "Delete…" }).click();
    await row("Wander").getByRole("group", { name: "Confirm deleting routine Wander" }).waitFor();
    // The confirming button has focus: Enter deletes.
    await page.keyboard.press("Enter");
    await row("Wander").waitFor({ state: "detached" });
    expect((await api("GET", `/api/schedules/${wander.id}`)).status).toBe(404);
    expect(await row("Morning news").count()).toBe(1);
  });
});
