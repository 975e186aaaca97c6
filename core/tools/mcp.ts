/**
 * A run's MCP tools (EXACT-021): one definition per snapshotted `<slug>__<tool>` name, whose
 * call the agent object makes to the connection's server (never the box), and the server's
 * result as the loop stores it: its text, its first image through the tool-image path, its
 * structured content as JSON when it sent no text, and `isError` as a tool error.
 */
import * as z from "zod";
import type { OfferedTool } from "../runs/snapshot";
import type { AnyToolDefinition, McpCallResult, McpContentBlock, ToolContext, ToolDefinition, ToolImage, ToolResult } from "./types";

const NOT_CONNECTED = "ERROR: this run reaches no MCP connection";

/**
 * The definition behind one snapshotted MCP tool. Its arguments are any JSON object: the
 * server validates them against its own schema and answers with an error the model reads.
 */
export function mcpTool(schema: OfferedTool): AnyToolDefinition {
  const { name, description } = schema.function;
  const definition: ToolDefinition<Record<string, unknown>> = {
    name,
    description,
    binding: "mcp",
    parameters: z.record(z.string(), z.unknown()),
    async execute(args, ctx: ToolContext): Promise<ToolResult> {
      if (!ctx.mcp) return { content: NOT_CONNECTED };
      const called = await ctx.mcp.call(name, args, ctx.signal);
      if (!called.ok) return { content: `ERROR: ${called.message}` };
      return mcpResult(called.result);
    },
  };
  return definition as AnyToolDefinition;
}

/**
 * A tools/call result as a tool result: text blocks in order, one per line; the first image
 * for the model (further images, audio and binary resources are named, not sent); a
 * resource's text inline; the structured content as JSON when no block carried text; an
 * error result starts with `ERROR:`, as every tool error does.
 *
 * @example mcpResult({ content: [{ type: "text", text: "hi" }] }) // { content: "hi" }
 * @example mcpResult({ content: [], structuredContent: { sum: 3 } }) // { content: '{"sum":3}' }
 * @example mcpResult({ content: [{ type: "text", text: "no" }], isError: true }) // { content: "ERROR: no" }
 */
export function mcpResult(result: McpCallResult): ToolResult {
  const parts: string[] = [];
  let image: ToolImage | undefined;
  let texts = 0;
  for (const block of Array.isArray(result?.content) ? result.content : []) {
    const part = blockText(block, image === undefined);
    if (part.image) image = part.image;
    if (part.text !== undefined) parts.push(part.text);
    if (part.counts) texts++;
  }
  if (texts === 0 && result?.structuredContent !== undefined && result.structuredContent !== null) {
    parts.unshift(JSON.stringify(result.structuredContent));
  }
  let text = parts.join("\n");
  if (result?.isError === true) text = `ERROR: ${text || "the tool reported an error"}`;
  else if (text === "" && !image) text = "(the tool returned no content)";
  return image ? { content: text, image } : { content: text };
}

/** One block's text (`counts`: it is the server's own text), or its image when one may still be taken. */
function blockText(block: McpContentBlock, imageWanted: boolean): { text?: string; image?: ToolImage; counts?: boolean } {
  if (block === null || typeof block !== "object") return {};
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? { text: block.text, counts: true } : {};
    case "image": {
      const { data, mimeType } = block as { data: unknown; mimeType: unknown };
      if (imageWanted && typeof data === "string" && typeof mimeType === "string") return { image: { mediaType: mimeType, dataBase64: data } };
      return { text: `[image ${String(mimeType)} not shown: one image per result]` };
    }
    case "audio":
      return { text: `[audio ${String((block as { mimeType?: unknown }).mimeType)} not shown]` };
    case "resource_link": {
      const link = block as { uri?: unknown; name?: unknown };
      return { text: `[resource ${String(link.name ?? "")} ${String(link.uri ?? "")}]`.replace("  ", " ") };
    }
    case "resource": {
      type Fields = { uri?: unknown; text?: unknown; mimeType?: unknown };
      const resource = (block as Fields & { resource?: Fields }).resource ?? (block as Fields);
      if (typeof resource?.text === "string") return { text: resource.text, counts: true };
      return { text: `[resource ${String(resource?.uri ?? "")} (${String(resource?.mimeType ?? "binary")}) not shown]` };
    }
    default:
      return { text: `[${String(block.type)} content not shown]` };
  }
}
