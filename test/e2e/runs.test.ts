import { describe, expect, inject, it } from "vitest";
import { api } from "./http";

/** Reads SSE frames from the stack until `until` holds or the time runs out. */
async function readEvents(path: string, until: (events: Array<{ event: string; id?: string; data: any }>) => boolean) {
  const controller = new AbortController();
  const res = await fetch(`${inject("apiUrl")}${path}`, { headers: { authorization: `Bearer ${inject("token")}` }, signal: controller.signal });
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: Array<{ event: string; id?: string; data: any }> = [];
  let buffer = "";
  const deadline = Date.now() + 15_000;
  while (!until(events) && Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = Object.fromEntries(
        frame
          .split("\n")
          .filter((l) => !l.startsWith(":"))
          .map((l) => [l.slice(0, l.indexOf(": ")), l.slice(l.indexOf(": ") + 2)]),
      );
      if (lines.data) events.push({ event: lines.event ?? "message", id: lines.id, data: JSON.parse(lines.data) });
    }
  }
  controller.abort();
  return events;
}

describe("runs on the local stack", () => {
  it("RUN-004 / SSE-001: a direct run answers through wrangler dev with the mock as the default provider, streamed over SSE", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: "Runs" } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Echo" } })).json;
    const run = await api("POST", `/api/agents/${agent.id}/runs`, { body: { message: "ping over the edge" } });
    expect(run.status).toBe(201);
    // Whether the stream opens before or after the reply, it ends with the reply and a not-generating status.
    const events = await readEvents(
      `/api/runs/${run.json.id}/events`,
      (e) => e.some((x) => x.event === "message" && x.id === "2") && e.some((x) => x.event === "status" && x.data.generating === false),
    );
    const rows = events.filter((e) => e.event === "message");
    expect(rows.map((e) => Number(e.id))).toEqual([0, 1, 2]);
    expect(rows[2]!.data.payload).toEqual({ role: "assistant", content: "echo: ping over the edge" });
    expect(rows[2]!.data.cost_usd).toEqual(expect.any(String));
    const list = await api("GET", `/api/agents/${agent.id}/runs`);
    expect(list.json.data[0]).toMatchObject({ id: run.json.id, kind: "direct", status: "active", label: "ping over the edge" });
  });
});

describe("routines on the local stack", () => {
  it("SCHED-002: cron and wake-window routines are planned in the deployed bundle (cron-parser and Intl time zones inside workerd)", async () => {
    const guild = (await api("POST", "/api/guilds", { body: { name: "Routines" } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name: "Planner" } })).json;
    const cron = await api("POST", `/api/agents/${agent.id}/schedules`, {
      body: { description: "Yearly", instruction: "Review the year.", cron: "0 0 1 1 *" },
    });
    expect(cron.status).toBe(201);
    expect(cron.json.next_run_at).toMatch(/-01-01T00:00:00\.000Z$/);
    const window = await api("POST", `/api/agents/${agent.id}/schedules`, {
      body: { description: "Daytime", instruction: "Look around.", wake_window: { timezone: "Europe/Berlin", start: "09:00", end: "17:00", max_wakes: 3 } },
    });
    expect(window.status).toBe(201);
    const status = await api("GET", `/api/agents/${agent.id}/status`);
    expect(status.json.deadlines.find((d: { name: string }) => d.name === "schedule").due_at).toBe([cron.json.next_run_at, window.json.next_run_at].sort()[0]);
  });
});
