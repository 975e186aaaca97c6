/**
 * The `tavily_search` binding (EXACT-015): web search, offered only when the platform has
 * TAVILY_API_KEY. The agent object calls the provider (ctx.search); results come back
 * numbered with their URLs so the model can cite them.
 */
import * as z from "zod";
import { formatResults, SEARCH_DEFAULT_RESULTS, SEARCH_MAX_RESULTS, SearchError } from "../search/tavily";
import type { ToolDefinition } from "./types";

export const TAVILY_SEARCH = "tavily_search";

/**
 * @example tavily_search({ query: "workerd release notes" }) // 'Search results for "workerd release notes" (5):\n\n[1] …\nURL: https://…'
 */
export const tavilySearchTool: ToolDefinition<{ query: string; max_results: number; topic: "general" | "news" }> = {
  name: TAVILY_SEARCH,
  description: "Search the web. Returns the top results, each with its title, URL and an extract. Cite the URLs of the results you use.",
  binding: TAVILY_SEARCH,
  parameters: z.strictObject({
    query: z.string().trim().min(1).max(400).describe("What to search for, as you would type it into a search engine"),
    max_results: z.number().int().min(1).max(SEARCH_MAX_RESULTS).default(SEARCH_DEFAULT_RESULTS).describe("How many results to return"),
    topic: z.enum(["general", "news"]).default("general").describe("news for recent events, general otherwise"),
  }),
  async execute(args, ctx) {
    if (!ctx.search) return { content: "ERROR: web search is not configured on this platform any more" };
    try {
      const found = await ctx.search({ query: args.query, maxResults: args.max_results, topic: args.topic }, ctx.signal);
      return { content: formatResults(args.query, found) };
    } catch (error) {
      if (ctx.signal?.aborted) throw error;
      const message = error instanceof SearchError ? error.message : `the search failed: ${(error as Error)?.message ?? String(error)}`;
      return { content: `ERROR: ${message}` };
    }
  },
};

export const SEARCH_TOOLS = [tavilySearchTool] as const;
