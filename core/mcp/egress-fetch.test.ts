import { describe, expect, it } from "vitest";
import { allowanceFrom } from "../providers/egress";
import { EgressRefused, egressCheckedFetch, mcpUrlIssue, redactedUrl } from "./egress-fetch";

/** A fake network: answers by URL, records what each request carried. */
function network(routes: Record<string, () => Response>) {
  const seen: Array<{ url: string; method: string; authorization: string | null; body: unknown }> = [];
  const base = async (input: string | URL, init?: RequestInit) => {
    const url = String(input);
    const headers = new Headers(init?.headers);
    seen.push({ url, method: init?.method ?? "GET", authorization: headers.get("authorization"), body: init?.body });
    expect(init?.redirect).toBe("manual");
    const route = routes[url];
    if (!route) throw new Error(`unexpected ${url}`);
    return route();
  };
  return { base, seen };
}

const redirect = (status: number, location: string) => () => new Response(null, { status, headers: { location } });

describe("MCP egress-checked fetch", () => {
  it("follows redirects itself, checking each hop, and keeps the method and body on 307/308", async () => {
    const { base, seen } = network({
      "https://a.example.com/mcp": redirect(307, "/v2/mcp"),
      "https://a.example.com/v2/mcp": () => new Response("ok"),
    });
    const res = await egressCheckedFetch(allowanceFrom(undefined), base)("https://a.example.com/mcp", {
      method: "POST",
      body: "{}",
      headers: { authorization: "Bearer t" },
    });
    expect(await res.text()).toBe("ok");
    expect(seen.map((s) => [s.url, s.method, s.body, s.authorization])).toEqual([
      ["https://a.example.com/mcp", "POST", "{}", "Bearer t"],
      ["https://a.example.com/v2/mcp", "POST", "{}", "Bearer t"],
    ]);
  });

  it("a redirect to another origin drops the Authorization header; 303 turns into a GET without a body", async () => {
    const { base, seen } = network({
      "https://a.example.com/mcp": redirect(303, "https://b.example.com/mcp"),
      "https://b.example.com/mcp": () => new Response("ok"),
    });
    await egressCheckedFetch(allowanceFrom(undefined), base)("https://a.example.com/mcp", {
      method: "POST",
      body: "{}",
      headers: { authorization: "Bearer t" },
    });
    expect(seen[1]).toEqual({ url: "https://b.example.com/mcp", method: "GET", authorization: null, body: undefined });
  });

  it("refuses a redirect to an internal address before calling it, and a redirect loop after five hops", async () => {
    const { base, seen } = network({ "https://a.example.com/mcp": redirect(302, "http://169.254.169.254/latest") });
    await expect(egressCheckedFetch(allowanceFrom("loopback"), base)("https://a.example.com/mcp")).rejects.toBeInstanceOf(EgressRefused);
    expect(seen).toHaveLength(1);
    const loop = network({ "https://a.example.com/loop": redirect(302, "/loop") });
    await expect(egressCheckedFetch(allowanceFrom(undefined), loop.base)("https://a.example.com/loop")).rejects.toMatchObject({ kind: "redirects" });
    expect(loop.seen).toHaveLength(6);
  });

  it("URL rules are the model base URL's, with a message of their own for credentials; shown URLs lose their query", () => {
    expect(mcpUrlIssue("https://mcp.example.com/mcp", new Set())).toBeNull();
    expect(mcpUrlIssue("http://127.0.0.1:9/mcp", new Set())).toMatchObject({ kind: "loopback" });
    expect(mcpUrlIssue("http://127.0.0.1:9/mcp", allowanceFrom("loopback"))).toBeNull();
    expect(mcpUrlIssue("https://u:p@mcp.example.com/", new Set())?.message).toContain("connection's auth");
    expect(redactedUrl("https://u:p@mcp.example.com/mcp?key=secret#x")).toBe("https://mcp.example.com/mcp");
  });
});
