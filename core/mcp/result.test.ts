import { describe, expect, it } from "vitest";
import { neutralResult } from "./client";

describe("MCP call results", () => {
  it("content blocks become a neutral shape; unknown kinds a short note", () => {
    expect(
      neutralResult({
        content: [
          { type: "text", text: "hi" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
          { type: "resource_link", uri: "file:///x", name: "x" },
          { type: "resource", resource: { uri: "file:///y", text: "body", mimeType: "text/plain" } },
          { type: "hologram" },
        ],
        structuredContent: { n: 1 },
        isError: true,
      }),
    ).toEqual({
      content: [
        { type: "text", text: "hi" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "resource_link", uri: "file:///x", name: "x" },
        { type: "resource", uri: "file:///y", mimeType: "text/plain", text: "body" },
        { type: "text", text: "[unsupported content: hologram]" },
      ],
      structuredContent: { n: 1 },
      isError: true,
    });
    expect(neutralResult({})).toEqual({ content: [], isError: false });
  });
});
