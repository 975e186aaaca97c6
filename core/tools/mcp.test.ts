import { describe, expect, it } from "vitest";
import { mcpResult, mcpTool } from "./mcp";
import type { ToolContext } from "./types";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

describe("an MCP tool's result", () => {
  it("EXACT-021: text blocks in order; structuredContent as JSON only when no text came", () => {
    expect(
      mcpResult({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toEqual({ content: "a\nb" });
    expect(mcpResult({ content: [{ type: "text", text: "3" }], structuredContent: { sum: 3 } })).toEqual({ content: "3" });
    expect(mcpResult({ content: [], structuredContent: { sum: 3 } })).toEqual({ content: '{"sum":3}' });
    expect(mcpResult({})).toEqual({ content: "(the tool returned no content)" });
  });

  it("EXACT-021: isError is a tool error; the first image goes the tool-image way, others are named", () => {
    expect(mcpResult({ content: [{ type: "text", text: "boom" }], isError: true })).toEqual({ content: "ERROR: boom" });
    expect(mcpResult({ isError: true }).content).toBe("ERROR: the tool reported an error");
    const two = mcpResult({
      content: [
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a", text: "inline" } },
        { type: "resource_link", uri: "https://x/y", name: "y" },
      ],
    });
    expect(two.image).toEqual({ mediaType: "image/png", dataBase64: PNG });
    expect(two.content).toBe("[image image/png not shown: one image per result]\ninline\n[resource y https://x/y]");
  });

  it("EXACT-021: a call goes to the run's connections; without them the model reads why", async () => {
    const tool = mcpTool({ type: "function", function: { name: "demo__echo", description: "Echo", parameters: { type: "object" } } });
    const ctx = { agentId: "a", runId: "r", toolCallId: "c", now: () => new Date(), store: {} } as unknown as ToolContext;
    expect((await tool.execute({}, ctx)).content).toBe("ERROR: this run reaches no MCP connection");
    const calls: unknown[] = [];
    const mcp: ToolContext["mcp"] = {
      call: async (name, args) => {
        calls.push([name, args]);
        return name === "demo__echo" ? { ok: true, result: { content: [{ type: "text", text: "hi" }] } } : { ok: false, message: "gone" };
      },
    };
    expect((await tool.execute({ text: "hi" }, { ...ctx, mcp })).content).toBe("hi");
    expect(calls).toEqual([["demo__echo", { text: "hi" }]]);
  });
});
