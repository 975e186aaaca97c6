import * as z from "zod";
import { SandboxError, sandboxFailureText, sandboxMissingText } from "./sandbox-error";
import type { ToolContext, ToolDefinition, ToolResult } from "./types";

/**
 * The eight browser tools (EXACT-019, OP-EXACT-2): Playwright driving the box's Chromium
 * over CDP (SBX-019), the same browser the operator watches in the Browser tab. Element refs
 * come from browser_snapshot (and from the page report every action answers with).
 * Offered when the agent's browser flag is on.
 */

const ref = z
  .string()
  .regex(/^[a-z0-9]{1,32}$/i, "a ref from the snapshot, such as e12")
  .describe("The element's ref from the latest snapshot, such as e12");
const selector = z.string().min(1).max(1000).describe("A CSS selector, when the element has no ref");
const oneTarget = (args: { ref?: string | undefined; selector?: string | undefined }) => (args.ref === undefined) !== (args.selector === undefined);
const ONE_TARGET = { message: "give either ref or selector", path: ["ref"] };

/** Asks the box's browser driver for one action; failures become text the model can act on. */
async function drive(tool: string, action: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  if (!ctx.sandbox) return { content: sandboxMissingText(tool) };
  try {
    const answer = await ctx.sandbox.browser(action, args, ctx.signal);
    return { content: answer.text ?? `${tool} done.`, ...(answer.image ? { image: answer.image } : {}) };
  } catch (error) {
    if (error instanceof SandboxError) return { content: sandboxFailureText(error) };
    throw error;
  }
}

export const browserNavigate: ToolDefinition<{ url: string }> = {
  name: "browser_navigate",
  description: "Open a web address in the current browser tab. Answers with the page's address, title and accessibility snapshot.",
  binding: "browser",
  parameters: z.strictObject({ url: z.string().min(1).max(8192).describe("An http or https address") }),
  execute: (args, ctx) => drive("browser_navigate", "navigate", args, ctx),
};

export const browserSnapshot: ToolDefinition<Record<string, never>> = {
  name: "browser_snapshot",
  description: "Read the current tab as an accessibility tree: roles, names, text and a [ref=eN] for each element to pass to click and type.",
  binding: "browser",
  parameters: z.strictObject({}),
  execute: (_args, ctx) => drive("browser_snapshot", "snapshot", {}, ctx),
};

export const browserClick: ToolDefinition<{ ref?: string | undefined; selector?: string | undefined }> = {
  name: "browser_click",
  description: "Click an element of the current tab, by its ref from the snapshot (or a CSS selector). Answers with the page after the click.",
  binding: "browser",
  parameters: z.strictObject({ ref: ref.optional(), selector: selector.optional() }).refine(oneTarget, ONE_TARGET),
  execute: (args, ctx) => drive("browser_click", "click", args, ctx),
};

export const browserType: ToolDefinition<{ ref?: string | undefined; selector?: string | undefined; text: string; submit?: boolean | undefined }> = {
  name: "browser_type",
  description: "Replace the text of an input by its ref (or a CSS selector); with submit, press Enter afterwards. Answers with the page afterwards.",
  binding: "browser",
  parameters: z
    .strictObject({
      ref: ref.optional(),
      selector: selector.optional(),
      text: z.string().max(100_000).describe("The text the field should hold"),
      submit: z.boolean().optional().describe("Press Enter after typing (default false)"),
    })
    .refine(oneTarget, ONE_TARGET),
  execute: (args, ctx) => drive("browser_type", "type", args, ctx),
};

export const browserPressKey: ToolDefinition<{ key: string }> = {
  name: "browser_press_key",
  description: "Press a key or key combination in the current tab, e.g. Enter, Escape, ArrowDown, Control+A.",
  binding: "browser",
  parameters: z.strictObject({ key: z.string().min(1).max(64).describe("A key name such as Enter, Tab or Control+A") }),
  execute: (args, ctx) => drive("browser_press_key", "press_key", args, ctx),
};

export const browserScroll: ToolDefinition<{ direction: "up" | "down" | "left" | "right"; amount?: number | undefined }> = {
  name: "browser_scroll",
  description: "Scroll the current tab. Answers with the new scroll position and the page size.",
  binding: "browser",
  parameters: z.strictObject({
    direction: z.enum(["up", "down", "left", "right"]),
    amount: z.number().int().min(1).max(100_000).optional().describe("Pixels to scroll (default 600)"),
  }),
  execute: (args, ctx) => drive("browser_scroll", "scroll", args, ctx),
};

export const browserScreenshot: ToolDefinition<Record<string, never>> = {
  name: "browser_screenshot",
  description: "See the current tab as a 1280x720 image. Prefer browser_snapshot to read text and find refs; use this for layout and visuals.",
  binding: "browser",
  parameters: z.strictObject({}),
  execute: (_args, ctx) => drive("browser_screenshot", "screenshot", {}, ctx),
};

export const browserTabs: ToolDefinition<{ action: "list" | "new" | "select" | "close"; index?: number | undefined; url?: string | undefined }> = {
  name: "browser_tabs",
  description: "List the browser's tabs, open a new one (optionally at url), select one by index, or close one (the current tab by default).",
  binding: "browser",
  parameters: z.strictObject({
    action: z.enum(["list", "new", "select", "close"]),
    index: z.number().int().min(0).optional().describe("The tab's number from list (select, close)"),
    url: z.string().min(1).max(8192).optional().describe("Address to open in the new tab (new)"),
  }),
  execute: (args, ctx) => drive("browser_tabs", "tabs", args, ctx),
};

export const BROWSER_TOOLS = [
  browserNavigate,
  browserSnapshot,
  browserClick,
  browserType,
  browserPressKey,
  browserScroll,
  browserScreenshot,
  browserTabs,
] as const;
