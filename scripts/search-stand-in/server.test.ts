import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { platformRedactor } from "../../core/output/redaction";
import { toolOutput } from "../../core/output/tool-output";
import { SEARCH_RESULT_CHARS, tavilySearch } from "../../core/search/tavily";
import { MemoryNotesRecordsStore } from "../../core/tools/memory-store";
import { offeredTools, runTool } from "../../core/tools/registry";
import type { ToolContext } from "../../core/tools/types";
import { type SearchStandIn, startSearchStandIn } from "./server";

let standIn: SearchStandIn;
beforeAll(async () => {
  standIn = await startSearchStandIn();
});
afterAll(() => standIn.close());

const tools = offeredTools({ kind: "direct", search: true });
const ctx = (search: ToolContext["search"]): ToolContext => ({
  agentId: "a",
  runId: "r",
  toolCallId: "c",
  now: () => new Date(0),
  store: new MemoryNotesRecordsStore(),
  ...(search ? { search } : {}),
});
const search = () => tavilySearch({ apiKey: standIn.key, apiUrl: standIn.url })!;

describe("tavily_search against the local stand-in", () => {
  it("EXACT-015: without a key there is no search, and the tool says so", async () => {
    expect(tavilySearch({ apiKey: "", apiUrl: standIn.url })).toBeNull();
    expect((await runTool(tools, "tavily_search", '{"query":"cats"}', ctx(undefined))).content).toMatch(/^ERROR: web search is not configured/);
  });

  it("EXACT-015: results are numbered and cited with their URLs", async () => {
    const { content } = await runTool(tools, "tavily_search", '{"query":"durable objects","max_results":2}', ctx(search()));
    expect(content).toContain('Search results for "durable objects" (2):');
    expect(content).toContain("[1] Result 1 for durable objects\nURL: https://example.com/search/1?q=durable%20objects");
    expect(content).toContain("Sources:\n[1] https://example.com/search/1?q=durable%20objects\n[2] https://example.com/search/2?q=durable%20objects");
    expect(content).not.toContain("/search/3");
  });

  it("EXACT-015: results are capped in count and size", async () => {
    const { content } = await runTool(tools, "tavily_search", '{"query":"stand-in:many","max_results":10}', ctx(search()));
    expect(content.length).toBeLessThanOrEqual(SEARCH_RESULT_CHARS);
    expect(content).not.toContain("[11]");
    expect(content).toMatch(/more result\(s\) left out/);
    expect((await runTool(tools, "tavily_search", '{"query":"x","max_results":50}', ctx(search()))).content).toMatch(/^ERROR: invalid arguments: max_results/);
  });

  it("EXACT-015: a key the provider echoes is redacted by the run's redaction set", async () => {
    const { content } = await runTool(tools, "tavily_search", '{"query":"stand-in:echo-key"}', ctx(search()));
    const stored = toolOutput({ text: content, redactor: platformRedactor({ TAVILY_API_KEY: standIn.key }), remaining: 10 });
    expect(stored).not.toContain(standIn.key);
    expect(stored).toContain("[REDACTED:TAVILY_API_KEY]");
  });

  it("EXACT-015: a provider error or a refused key is a tool error the model reads", async () => {
    const failed = await runTool(tools, "tavily_search", '{"query":"stand-in:error"}', ctx(search()));
    expect(failed.content).toMatch(/^ERROR: the search provider answered HTTP 500/);
    expect(toolOutput({ text: failed.content, redactor: platformRedactor({ TAVILY_API_KEY: standIn.key }), remaining: 1 })).not.toContain(standIn.key);
    const wrongKey = tavilySearch({ apiKey: "tvly-wrong-key-123456", apiUrl: standIn.url })!;
    expect((await runTool(tools, "tavily_search", '{"query":"cats"}', ctx(wrongKey))).content).toMatch(
      /^ERROR: the search provider answered HTTP 401: Unauthorized/,
    );
    const nowhere = tavilySearch({ apiKey: "tvly-x-123456", apiUrl: "http://127.0.0.1:9" })!;
    expect((await runTool(tools, "tavily_search", '{"query":"cats"}', ctx(nowhere))).content).toMatch(/^ERROR: the search provider could not be reached/);
  });

  it("EXACT-015: a provider that does not answer in time is a tool error", async () => {
    const hanging = tavilySearch({
      apiKey: "k-123456",
      apiUrl: "http://x.invalid",
      timeoutMs: 50,
      fetcher: (_url, init) => new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))),
    })!;
    expect((await runTool(tools, "tavily_search", '{"query":"cats"}', ctx(hanging))).content).toMatch(/^ERROR: the search provider did not answer within/);
  });
});
