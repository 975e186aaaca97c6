import { describe, expect, it } from "vitest";
import { type McpReach, mcpServerId, mcpSnapshot, mcpTarget, mcpToolNames } from "./mcp-snapshot";

const tool = (slug: string, remote: string, description = `${remote} it`, input_schema: unknown = { type: "object", properties: {} }) => ({
  name: `${slug}__${remote}`,
  remote_name: remote,
  description,
  input_schema,
});
const reach = (slug: string, tools: McpReach["tools"], url = `https://${slug}.example.com/mcp?key=k`): McpReach => ({
  connection_id: `id-${slug}`,
  slug,
  url,
  tools,
});

describe("a run's MCP tools at creation", () => {
  it("EXACT-021: the enabled tools of each connection are offered by slug, in listing order, with the server's description and schema", () => {
    const { tools } = mcpSnapshot(
      [
        reach("zeta", [tool("zeta", "b"), tool("zeta", "a")]),
        reach("alpha", [tool("alpha", "echo", "Echoes", { $schema: "x", type: "object", required: ["text"] })]),
      ],
      new Set(),
    );
    expect(tools.map((t) => t.function.name)).toEqual(["alpha__echo", "zeta__b", "zeta__a"]);
    expect(tools[0]).toEqual({
      type: "function",
      function: { name: "alpha__echo", description: "Echoes", parameters: { type: "object", required: ["text"] } },
    });
  });

  it("EXACT-023: the slim list holds connection_id, server_id, slug and each tool's name, remote name and output schema (when it declared one), nothing more", () => {
    const sum = { type: "object", properties: { sum: { type: "number" } } };
    const { mcp } = mcpSnapshot(
      [reach("demo", [tool("demo", "echo"), { ...tool("demo", "add"), output_schema: sum }, { ...tool("demo", "odd"), output_schema: [1] }])],
      new Set(),
    );
    expect(mcp).toEqual([
      {
        connection_id: "id-demo",
        server_id: "https://demo.example.com/mcp",
        slug: "demo",
        tools: [
          { name: "demo__echo", remote_name: "echo" },
          { name: "demo__add", remote_name: "add", output_schema: sum },
          { name: "demo__odd", remote_name: "odd" },
        ],
      },
    ]);
    expect(mcpToolNames(mcp)).toEqual(new Set(["demo__echo", "demo__add", "demo__odd"]));
    expect(mcpTarget(mcp, "demo__add")).toEqual({ entry: mcp[0], remoteName: "add", outputSchema: sum });
    expect(mcpTarget(mcp, "demo__echo")).toEqual({ entry: mcp[0], remoteName: "echo", outputSchema: null });
    expect(mcpTarget(mcp, "note_read")).toBeNull();
  });

  it("EXACT-021: a name already offered is skipped, a connection left without tools is not listed, a schema is always an object", () => {
    const { tools, mcp } = mcpSnapshot([reach("a", [tool("a", "x")]), reach("b", [tool("b", "y", "", "nonsense")])], new Set(["a__x"]));
    expect(mcp.map((c) => c.slug)).toEqual(["b"]);
    expect(tools[0]!.function.parameters).toEqual({ type: "object" });
  });

  it("EXACT-023: server_id is the URL's origin and path: no query, fragment or credentials", () => {
    expect(mcpServerId("https://u:p@mcp.example.com:8443/v1/mcp?api_key=s3cret#x")).toBe("https://mcp.example.com:8443/v1/mcp");
    expect(mcpServerId("not a url?key=1")).toBe("not a url");
  });
});
