import { Hono } from "hono";
import { presetCatalog } from "../../core/mcp/presets";
import type { AppEnv } from "../http/context";
import { ok, operation } from "../http/contract";
import { McpPresetList } from "./mcp-presets.schema";

/** `GET /api/mcp/presets`: the catalog of curated MCP servers. */
export const mcpPresetRoutes = new Hono<AppEnv>().get(
  "/presets",
  operation({
    operationId: "listMcpPresets",
    summary: "The catalog of curated MCP servers; adding one enables only its curated tools",
    tag: "MCP",
    responses: { 200: ok("The presets this platform offers", McpPresetList) },
  }),
  (c) =>
    c.json({
      data: presetCatalog(c.env.MCP_PRESETS_URL_OVERRIDES).map((p) => ({
        key: p.key,
        title: p.title,
        url: p.url,
        auth: p.auth,
        tools: [...p.tools],
        docs_url: p.docsUrl,
      })),
    }),
);
