import { describe, expect, it } from "vitest";
import { STAND_IN_KEY } from "../../scripts/search-stand-in/server";
import { agentIdle, guildWithAgent, readRun, script, transcript } from "./agents";
import { api } from "./http";

/**
 * Web search on the whole local stack: the stack runs the loopback stand-in for Tavily with a
 * dummy key (scripts/search-stand-in), so a direct run is offered tavily_search and the agent
 * object calls it, as with the real provider.
 */
describe("tavily_search in a run (EXACT-015)", () => {
  it("EXACT-015: a direct run is offered tavily_search; its results come back cited with their URLs, and a key the provider echoes is redacted", async () => {
    const { agentId, model } = await guildWithAgent("Web search");
    await script(model, [
      {
        tool_calls: [
          { name: "tavily_search", arguments: { query: "durable objects", max_results: 2 } },
          { name: "tavily_search", arguments: { query: "stand-in:echo-key" } },
        ],
      },
      { content: "found it" },
    ]);
    const run = await api("POST", `/api/agents/${agentId}/runs`, { body: { message: "look it up" } });
    expect(run.status, run.text).toBe(201);
    await agentIdle(agentId);
    const runId = run.json.id as string;
    expect((await readRun(runId)).snapshot.tools).toContain("tavily_search");
    const rows = await transcript(runId);
    const [cited, echoed] = rows.filter((r) => r.role === "tool");
    expect(cited!.metadata.tool_name).toBe("tavily_search");
    expect(cited!.payload.content).toContain('Search results for "durable objects" (2):');
    expect(cited!.payload.content).toContain(
      "Sources:\n[1] https://example.com/search/1?q=durable%20objects\n[2] https://example.com/search/2?q=durable%20objects",
    );
    expect(echoed!.payload.content).toContain("[REDACTED:TAVILY_API_KEY]");
    expect(JSON.stringify(rows)).not.toContain(STAND_IN_KEY);
    expect(rows.at(-1)!.payload).toEqual({ role: "assistant", content: "found it" });
  });
});
