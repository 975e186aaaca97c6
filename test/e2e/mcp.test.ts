import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { type LocalMcpServer, startMcpServer } from "../../scripts/mcp-server/server";
import { agentIdle, errorCodes, guildWithAgent, readRun, script, transcript } from "./agents";
import { api } from "./http";

/**
 * MCP tools in runs on the local stack: connections made and discovered through the API
 * against the local MCP server (scripts/mcp-server, on loopback, which the local stack lets
 * the Worker reach as it does a local model), runs whose mock model calls `<slug>__<tool>`.
 * No box is involved: the agent object makes MCP calls itself.
 */
let server: LocalMcpServer;
const admin = async (path: string, body?: unknown) =>
  (await fetch(`${server.url}/admin/${path}`, {
    method: body === undefined && path === "state" ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((r) => r.json())) as any;
const serverState = () => admin("state") as Promise<{ cancelled: Array<{ requestId: string | number; reason?: string }>; calls: string[]; sessions: number }>;

/** A connection made through the API (discovered on creation), reaching every agent. */
async function connect(slug: string, path = "/mcp", auth: Record<string, unknown> = { kind: "none" }) {
  const res = await api("POST", "/api/mcp/connections", { body: { slug, url: `${server.url}${path}`, auth, org_wide: true } });
  expect(res.status, res.text).toBe(201);
  expect(res.json.status, res.text).toBe("ready");
  return res.json as { id: string; tools: Array<{ name: string; remote_name: string; from_server: { output_schema: Record<string, unknown> | null } }> };
}

/** A run started with a message; it settles before this returns. */
async function runWith(agentId: string, message: string) {
  const run = await api("POST", `/api/agents/${agentId}/runs`, { body: { message } });
  expect(run.status, run.text).toBe(201);
  await agentIdle(agentId);
  return run.json.id as string;
}

const toolRows = async (runId: string) => (await transcript(runId)).filter((r) => r.role === "tool");

/** Reads the run's SSE frames until `until` holds or the time runs out. */
async function readEvents(path: string, until: (events: Array<{ event: string; data: any }>) => boolean) {
  const controller = new AbortController();
  const res = await fetch(`${inject("apiUrl")}${path}`, { headers: { authorization: `Bearer ${inject("token")}` }, signal: controller.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: Array<{ event: string; data: any; raw: string }> = [];
  let buffer = "";
  const deadline = Date.now() + 20_000;
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
      if (lines.data) events.push({ event: lines.event ?? "message", data: JSON.parse(lines.data), raw: frame });
    }
  }
  controller.abort();
  return events;
}

beforeAll(async () => {
  server = await startMcpServer();
});
afterAll(async () => server?.close());
beforeEach(async () => void (await admin("reset", {})));

describe("MCP tools in runs (EXACT-021, EXACT-023, ERR-011, SEC-013)", () => {
  it("EXACT-021: discovery through the API follows every tools/list page", async () => {
    const connection = await connect("paged");
    // The local server lists two tools per page.
    expect(connection.tools.map((t) => t.name)).toEqual([
      "paged__echo",
      "paged__add",
      "paged__slow",
      "paged__fail",
      "paged__echo_header",
      "paged__page_filler_1",
      "paged__page_filler_2",
    ]);
    await api("DELETE", `/api/mcp/connections/${connection.id}`);
  });

  it("EXACT-021 / EXACT-023: a run calls <slug>__echo and <slug>__add on the server; its snapshot keeps the slim list, frozen when the server changes", async () => {
    const connection = await connect("demo");
    const { agentId, model } = await guildWithAgent("MCP calls");
    await script(model, [
      {
        tool_calls: [
          { name: "demo__echo", arguments: { text: "hello over MCP" } },
          { name: "demo__add", arguments: { a: 2, b: 3 } },
        ],
      },
      { content: "done" },
    ]);
    const runId = await runWith(agentId, "call the tools");
    const [echo, add] = await toolRows(runId);
    expect(echo!.payload.content).toMatch(/^hello over MCP\nremaining_tool_calls: \d+$/);
    expect(echo!.metadata).toMatchObject({ tool_name: "demo__echo", duration_ms: expect.any(Number) });
    expect(add!.payload.content).toMatch(/^5\n/);
    expect((await serverState()).calls).toEqual(["echo", "add"]);
    const run = await readRun(runId);
    expect(run.snapshot.mcp).toEqual([
      {
        connection_id: connection.id,
        server_id: `${server.url}/mcp`,
        slug: "demo",
        // A tool's output schema is frozen with it: add's sum checks its structured result.
        tools: connection.tools.map((t) => ({
          name: t.name,
          remote_name: t.remote_name,
          ...(t.from_server.output_schema ? { output_schema: t.from_server.output_schema } : {}),
        })),
      },
    ]);
    expect(run.snapshot.mcp[0].tools.find((t: { remote_name: string }) => t.remote_name === "add").output_schema).toMatchObject({ required: ["sum"] });
    expect(run.snapshot.tools.slice(-7)).toEqual(connection.tools.map((t) => t.name));

    // The server drops echo and adds a tool; the connection is discovered again.
    await admin("tools", { remove: ["echo"], add: [{ name: "late", description: "Came later.", inputSchema: { type: "object" } }] });
    const refreshed = await api("POST", `/api/mcp/connections/${connection.id}/refresh`);
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.json.tools.map((t: { name: string }) => t.name)).toContain("demo__late");
    // The existing run keeps its schemas: echo is still offered (the server now refuses it), late is not.
    await script(model, [{ tool_calls: [{ name: "demo__echo", arguments: { text: "again" } }] }, { content: "ok" }]);
    expect((await api("POST", `/api/runs/${runId}/messages`, { body: { content: "again" } })).status).toBe(202);
    await agentIdle(agentId);
    expect((await readRun(runId)).snapshot).toEqual(run.snapshot);
    const requests = (await (await fetch(`${inject("mockModelUrl")}/__requests?model=${model}`)).json()) as { requests: Array<{ body: any }> };
    const offered = requests.requests.at(-1)!.body.tools.map((t: { function: { name: string } }) => t.function.name);
    expect(offered).toContain("demo__echo");
    expect(offered).not.toContain("demo__late");
    expect((await toolRows(runId)).at(-1)!.payload.content).toMatch(/^ERROR: /);
    // A new run takes the server's list as it is now.
    const later = await api("POST", `/api/agents/${agentId}/runs`, { body: {} });
    const names = later.json.snapshot?.tools ?? (await readRun(later.json.id)).snapshot.tools;
    expect(names).toContain("demo__late");
    expect(names).not.toContain("demo__echo");
    await api("DELETE", `/api/mcp/connections/${connection.id}`);
  });

  it("EXACT-021: a generation keeps one session per connection for its calls, and opens it again once when the server forgot it", async () => {
    const connection = await connect("session");
    const { agentId, model } = await guildWithAgent("MCP sessions");
    const echo = (text: string) => ({ tool_calls: [{ name: "session__echo", arguments: { text } }] });
    // The third call comes after a pause in which the server forgets every session.
    await script(model, [echo("one"), echo("two"), { ...echo("three"), delay_ms: 2_000 }, { content: "done" }]);
    const before = (await serverState()).sessions;
    const run = await api("POST", `/api/agents/${agentId}/runs`, { body: { message: "three calls" } });
    await expect.poll(async () => (await serverState()).calls.length, { timeout: 15_000 }).toBe(2);
    expect((await serverState()).sessions - before).toBe(1);
    await admin("expire-sessions", {});
    await agentIdle(agentId);
    const rows = await toolRows(run.json.id);
    expect(rows.map((r) => r.payload.content.split("\n")[0])).toEqual(["one", "two", "three"]);
    expect((await serverState()).sessions - before).toBe(2);
    await api("DELETE", `/api/mcp/connections/${connection.id}`);
  });

  it("EXACT-021: cancelling the run cancels the slow tool in flight: the server receives notifications/cancelled", async () => {
    const connection = await connect("slowpoke");
    const { agentId, model } = await guildWithAgent("MCP cancel");
    await script(model, [{ tool_calls: [{ name: "slowpoke__slow", arguments: { seconds: 30 } }] }, { content: "never" }]);
    const run = await api("POST", `/api/agents/${agentId}/runs`, { body: { message: "wait" } });
    await expect.poll(async () => (await serverState()).calls, { timeout: 15_000 }).toContain("slow");
    const cancelled = await api("POST", `/api/runs/${run.json.id}/cancel`);
    expect(cancelled.status, cancelled.text).toBe(200);
    await expect.poll(async () => (await serverState()).cancelled.length, { timeout: 5_000 }).toBe(1);
    await agentIdle(agentId);
    expect(errorCodes(await readRun(run.json.id))).toContain("generation.cancelled");
    expect((await toolRows(run.json.id)).map((r) => r.payload.content)).toEqual(["ERROR: execution interrupted"]);
    await api("DELETE", `/api/mcp/connections/${connection.id}`);
  });

  it("EXACT-021: a structured result that breaks the tool's output schema (as frozen with the run) is a tool error row naming the mismatch", async () => {
    const sum = { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] };
    // A server that declares a sum and answers text in it.
    await admin("tools", {
      add: [
        { name: "shaped", description: "Answers structured content.", inputSchema: { type: "object" }, outputSchema: sum, structuredContent: { sum: "three" } },
      ],
    });
    const connection = await connect("shapes");
    const { agentId, model } = await guildWithAgent("MCP shapes");
    await script(model, [{ tool_calls: [{ name: "shapes__shaped", arguments: {} }] }, { content: "noted" }]);
    const runId = await runWith(agentId, "call it");
    const [row] = await toolRows(runId);
    expect(row!.payload.content).toMatch(/^ERROR: .*output schema/i);
    expect(row!.payload.content).not.toContain("three");
    expect((await serverState()).calls).toEqual(["shaped"]);
    expect((await readRun(runId)).snapshot.mcp[0].tools.find((t: { remote_name: string }) => t.remote_name === "shaped").output_schema).toEqual(sum);
    await api("DELETE", `/api/mcp/connections/${connection.id}`);
  });

  it("EXACT-021: a tool that reports an error is a tool error row; the run goes on", async () => {
    const connection = await connect("failing");
    const { agentId, model } = await guildWithAgent("MCP errors");
    await script(model, [{ tool_calls: [{ name: "failing__fail", arguments: {} }] }, { content: "it failed" }]);
    const runId = await runWith(agentId, "try it");
    const [row] = await toolRows(runId);
    expect(row!.payload.content).toMatch(/^ERROR: This tool always fails\.\n/);
    const run = await readRun(runId);
    expect(run.errors).toEqual([]);
    expect((await transcript(runId)).at(-1)!.payload).toEqual({ role: "assistant", content: "it failed" });
    await api("DELETE", `/api/mcp/connections/${connection.id}`);
  });

  it("ERR-011 / SEC-013: a server echoing the connection's bearer token never shows it: not in the stream, the transcript, the prompt replay or the next prompt", async () => {
    const connection = await connect("secure", "/bearer/mcp", { kind: "bearer", token: server.bearerToken });
    const { agentId, model } = await guildWithAgent("MCP redaction");
    await script(model, [{ tool_calls: [{ name: "secure__echo_header", arguments: {} }] }, { content: "seen" }]);
    const run = await api("POST", `/api/agents/${agentId}/runs`, { body: {} });
    const events = readEvents(`/api/runs/${run.json.id}/events`, (e) => e.some((x) => x.event === "status" && x.data.generating === false && x.data.status));
    await new Promise((r) => setTimeout(r, 100));
    expect((await api("POST", `/api/runs/${run.json.id}/messages`, { body: { content: "show the header" } })).status).toBe(202);
    await agentIdle(agentId);
    const stream = JSON.stringify(await events);
    const rows = await transcript(run.json.id);
    const [echoed] = rows.filter((r) => r.role === "tool");
    // The server did see it: the call authenticated with it, and echoed it back.
    expect(echoed!.payload.content).toMatch(/^Authorization: Bearer \[REDACTED:mcp:secure\]\n/);
    expect(stream).toContain("[REDACTED:mcp:secure]");
    expect(stream).not.toContain(server.bearerToken);
    expect(JSON.stringify(rows)).not.toContain(server.bearerToken);
    const last = rows.at(-1)!;
    const replay = await api("GET", `/api/runs/${run.json.id}/messages/${last.seq}/prompt`);
    expect(replay.status, replay.text).toBe(200);
    expect(replay.text).toContain("[REDACTED:mcp:secure]");
    expect(replay.text).not.toContain(server.bearerToken);
    const requests = (await (await fetch(`${inject("mockModelUrl")}/__requests?model=${model}`)).json()) as { requests: unknown[] };
    expect(JSON.stringify(requests)).not.toContain(server.bearerToken);
    // Nor does the API give it back.
    expect((await api("GET", `/api/mcp/connections/${connection.id}`)).text).not.toContain(server.bearerToken);
    await api("DELETE", `/api/mcp/connections/${connection.id}`);
  });

  it("SEC-013 / EXACT-021: a server URL, or a redirect, to an address the platform does not call is refused", async () => {
    const direct = await api("POST", "/api/mcp/connections", { body: { slug: "metadata", url: "http://169.254.169.254/mcp", auth: { kind: "none" } } });
    expect(direct.status, direct.text).toBeGreaterThanOrEqual(400);
    expect(direct.status).toBeLessThan(500);
    expect(direct.text).toMatch(/refused|not call|link-local|private/i);
    const redirected = await api("POST", "/api/mcp/connections", {
      body: { slug: "bounce", url: `${server.url}/redirect?to=${encodeURIComponent("http://169.254.169.254/latest/meta-data")}`, auth: { kind: "none" } },
    });
    const refusedAtOnce = redirected.status >= 400 && redirected.status < 500;
    const refusedInDiscovery = redirected.status === 201 && redirected.json.status === "error";
    expect(refusedAtOnce || refusedInDiscovery, redirected.text).toBe(true);
    expect(redirected.text).toMatch(/redirect/i);
    expect(redirected.text).toMatch(/refused|not call|link-local/i);
    if (refusedInDiscovery) await api("DELETE", `/api/mcp/connections/${redirected.json.id}`);
  });
});
