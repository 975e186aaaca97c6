import * as z from "zod";

export const McpPreset = z
  .object({
    key: z.string(),
    title: z.string(),
    url: z.string(),
    auth: z.enum(["none", "bearer", "oauth"]),
    tools: z.array(z.string()).describe("Remote tool names enabled when the preset is added; the others start disabled"),
    docs_url: z.string(),
  })
  .meta({ id: "McpPreset" });

export const McpPresetList = z.object({ data: z.array(McpPreset) }).meta({ id: "McpPresetList" });
