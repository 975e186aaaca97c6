import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, connect, discover, type McpEndpoint, McpError } from "../../core/mcp/client";
import { allowanceFrom } from "../../core/providers/egress";
import { type LocalMcpServer, startMcpServer } from "../../scripts/mcp-server/server";

/** core/mcp/client.ts against the local MCP server, over real HTTP. */
describe("MCP client against the local MCP server", () => {
  let server: LocalMcpServer;
  const allow = allowanceFrom("loopback");
  const at = (path: string, auth: McpEndpoint["auth"] = { kind: "none" }): McpEndpoint => ({ url: `${server.url}${path}`, auth });
  const state = async () =>
    (await (await fetch(`${server.url}/admin/state`)).json()) as { cancelled: unknown[]; calls: string[]; sessions: number; open_sessions: number };

  beforeAll(async () => {
    server = await startMcpServer();
  });
  afterAll(async () => server?.close());
  beforeEach(async () => void (await fetch(`${server.url}/admin/reset`, { method: "POST" })));

  it("discovery follows every tools/list cursor and reads the server's info and instructions", async () => {
    const found = await discover(at("/mcp"), { allow });
    expect(found.transport).toBe("streamable_http");
    expect(found.tools.map((t) => t.name)).toEqual(["echo", "add", "slow", "fail", "echo_header", "page_filler_1", "page_filler_2"]);
    expect(found.serverInfo).toMatchObject({ name: "guilds-local-mcp", version: "1.0.0" });
    expect(found.instructions).toContain("local stand-in");
    const add = found.tools.find((t) => t.name === "add")!;
    expect(add).toMatchObject({ title: "Add two numbers", outputSchema: { type: "object", required: ["sum"] } });
    expect((await state()).open_sessions).toBe(0);
  });

  it("a server without Streamable HTTP is reached over the old HTTP+SSE transport", async () => {
    const found = await discover(at("/sse"), { allow });
    expect(found.transport).toBe("sse");
    expect(found.tools).toHaveLength(7);
    const session = await connect({ ...at("/sse"), transport: "sse" }, { allow });
    try {
      expect(await call(session, "echo", { text: "over sse" })).toEqual({ content: [{ type: "text", text: "over sse" }], isError: false });
    } finally {
      await session.close();
    }
  });

  it("calls return a neutral shape: text, structured content, tool errors", async () => {
    const session = await connect(at("/mcp"), { allow });
    try {
      expect(await call(session, "add", { a: 2, b: 3 })).toEqual({ content: [{ type: "text", text: "5" }], structuredContent: { sum: 5 }, isError: false });
      const frozen = {
        name: "add",
        inputSchema: { type: "object" },
        outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
      };
      expect((await call(session, "add", { a: 1, b: 1 }, { tool: frozen })).structuredContent).toEqual({ sum: 2 });
      expect(await call(session, "fail", {})).toMatchObject({ isError: true, content: [{ type: "text", text: "This tool always fails." }] });
    } finally {
      await session.close();
    }
  });

  it("a bearer connection sends its token; without it the server's 401 is mcp.unauthorized", async () => {
    await expect(discover(at("/bearer/mcp"), { allow })).rejects.toMatchObject({ code: "mcp.unauthorized" });
    const session = await connect(at("/bearer/mcp", { kind: "bearer", token: server.bearerToken }), { allow });
    try {
      const result = await call(session, "echo_header", {});
      expect(result.content[0]).toEqual({ type: "text", text: `Authorization: Bearer ${server.bearerToken}` });
    } finally {
      await session.close();
    }
  });

  it("egress: a loopback URL is refused unless the platform allows loopback, before any request", async () => {
    await expect(discover(at("/mcp"), { allow: allowanceFrom(undefined) })).rejects.toMatchObject({
      code: "mcp.url_refused",
      message: expect.stringContaining("loopback"),
    });
    expect((await state()).sessions).toBe(0);
  });

  it("egress: a redirect to a metadata or private address is refused at that hop", async () => {
    for (const target of ["http://169.254.169.254/mcp", "http://10.1.2.3/mcp", "http://metadata.google.internal/mcp"]) {
      const refused = await discover(at(`/redirect?to=${encodeURIComponent(target)}`), { allow }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(McpError);
      expect(refused).toMatchObject({ code: "mcp.url_refused", message: expect.stringContaining("A redirect to") });
    }
    // A redirect the rules allow is followed.
    const found = await discover(at(`/redirect?to=${encodeURIComponent(`${server.url}/mcp`)}`), { allow });
    expect(found.tools).toHaveLength(7);
  });

  it("a call that times out sends notifications/cancelled to the server", async () => {
    const session = await connect(at("/mcp"), { allow });
    try {
      await expect(call(session, "slow", { seconds: 5 }, { timeoutMs: 300 })).rejects.toMatchObject({ code: "mcp.timeout" });
      await expect.poll(async () => (await state()).cancelled.length, { timeout: 3000 }).toBe(1);
    } finally {
      await session.close();
    }
  });

  it("an aborted call sends notifications/cancelled and fails as mcp.cancelled", async () => {
    const session = await connect(at("/mcp"), { allow });
    try {
      const abort = new AbortController();
      const pending = call(session, "slow", { seconds: 5 }, { signal: abort.signal });
      await expect.poll(async () => (await state()).calls).toContain("slow");
      abort.abort(new Error("run cancelled"));
      await expect(pending).rejects.toMatchObject({ code: "mcp.cancelled" });
      await expect
        .poll(async () => (await state()).cancelled, { timeout: 3000 })
        .toEqual([expect.objectContaining({ reason: expect.stringContaining("run cancelled") })]);
    } finally {
      await session.close();
    }
  });

  it("a session the server forgot (404) is opened again once and the call repeated", async () => {
    const session = await connect(at("/mcp"), { allow });
    try {
      const first = session.sessionId;
      expect(first).toBeTruthy();
      await fetch(`${server.url}/admin/expire-sessions`, { method: "POST" });
      expect(await call(session, "echo", { text: "again" })).toMatchObject({ content: [{ type: "text", text: "again" }] });
      expect(session.sessionId).not.toBe(first);
      expect((await state()).sessions).toBe(2);
    } finally {
      await session.close();
    }
  });

  it("an unreachable server is mcp.unreachable", async () => {
    await expect(discover({ url: "http://127.0.0.1:1/mcp", auth: { kind: "none" } }, { allow, timeoutMs: 2000 })).rejects.toMatchObject({
      code: "mcp.unreachable",
    });
  });
});
