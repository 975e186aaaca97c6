import { describe, expect, it } from "vitest";
import { ApiError } from "./api-client";
import { createBody, createLatch, fieldErrorsOf, reachingAgent, readCallback, rememberReturn, takeReturn } from "./mcp-connections";

const memory = () => {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), removeItem: (k: string) => void m.delete(k) };
};

describe("the console's MCP connections", () => {
  it("builds the create body for each auth kind and for a preset", () => {
    const form = { url: " http://127.0.0.1:1/mcp ", slug: "local ", auth: "none" as const, token: "t0k", preset: "" };
    expect(createBody(form)).toEqual({ url: "http://127.0.0.1:1/mcp", slug: "local", auth: { kind: "none" } });
    expect(createBody({ ...form, auth: "bearer" })).toEqual({ url: "http://127.0.0.1:1/mcp", slug: "local", auth: { kind: "bearer", token: "t0k" } });
    expect(createBody({ ...form, auth: "oauth" })).toEqual({ url: "http://127.0.0.1:1/mcp", slug: "local", auth: { kind: "oauth" } });
    expect(createBody({ ...form, auth: "oauth", clientId: " app-1 ", clientSecret: "s3cret" })).toEqual({
      url: "http://127.0.0.1:1/mcp",
      slug: "local",
      auth: { kind: "oauth", client: { id: "app-1", secret: "s3cret" } },
    });
    expect(createBody({ ...form, auth: "oauth", clientId: "app-1", clientSecret: "" }).auth).toEqual({ kind: "oauth", client: { id: "app-1" } });
    expect(createBody({ ...form, auth: "oauth", clientId: "  ", clientSecret: "ignored" }).auth).toEqual({ kind: "oauth" });
    expect(createBody({ ...form, auth: "oauth", preset: "qonto", clientId: "app-2" })).toEqual({
      preset: "qonto",
      slug: "local",
      auth: { kind: "oauth", client: { id: "app-2" } },
    });
    expect(createBody({ ...form, preset: "coingecko" })).toEqual({ preset: "coingecko", slug: "local" });
    expect(createBody({ ...form, preset: "alchemy", auth: "bearer" })).toEqual({ preset: "alchemy", slug: "local", auth: { kind: "bearer", token: "t0k" } });
  });

  it("finds the connections reaching an agent: organisation-wide, granted to it, or to its guild", () => {
    const c = (id: string, org_wide: boolean, grants: Array<{ guild_id: string | null; agent_id: string | null }>) => ({ id, org_wide, grants });
    const all = [
      c("wide", true, []),
      c("mine", false, [{ guild_id: null, agent_id: "a1" }]),
      c("guild", false, [{ guild_id: "g1", agent_id: null }]),
      c("other", false, [{ guild_id: "g2", agent_id: null }]),
    ];
    expect(reachingAgent(all, { id: "a1", guild_id: "g1" }).map((x) => x.id)).toEqual(["wide", "mine", "guild"]);
  });

  it("reads the authorization server's redirect: code and state, a refusal, or what is missing", () => {
    expect(readCallback("?code=abc&state=s")).toEqual({ kind: "complete", body: { code: "abc", state: "s" } });
    expect(readCallback("?error=access_denied&error_description=No&state=s")).toEqual({ kind: "denied", error: "access_denied", description: "No" });
    expect(readCallback("?code=abc")).toEqual({ kind: "incomplete", missing: ["state"] });
  });

  it("goes back to the page that started, once, and only to a path of this console", () => {
    const storage = memory();
    rememberReturn("/connections?x=1", storage);
    expect(takeReturn(storage)).toBe("/connections?x=1");
    expect(takeReturn(storage)).toBe("/connections");
    rememberReturn("//evil.example/", storage);
    expect(takeReturn(storage)).toBe("/connections");
  });

  it("puts a 422's and a named field's refusal beside the field, and nothing else", () => {
    const fields = new ApiError(422, "validation.failed", "Invalid slug", { fields: [{ field: "slug", message: "bad" }] });
    expect(fieldErrorsOf(fields)).toEqual({ slug: "bad" });
    const url = new ApiError(422, "mcp.url_refused", "The URL points at a private address", { field: "url" });
    expect(fieldErrorsOf(url)).toEqual({ url: "The URL points at a private address (mcp.url_refused)" });
    expect(fieldErrorsOf(new ApiError(409, "mcp_connection.slug_taken", "Taken", { field: "slug" }))).toEqual({ slug: "Taken (mcp_connection.slug_taken)" });
    expect(fieldErrorsOf(new ApiError(502, "mcp.unreachable", "Down", { field: "url" }))).toBeNull();
    expect(fieldErrorsOf(new Error("x"))).toBeNull();
  });

  it("applies a load's answer only while no later load or click has begun", () => {
    const latch = createLatch();
    const load = latch.begin();
    const click = latch.begin();
    expect(latch.current(load)).toBe(false);
    expect(latch.current(click)).toBe(true);
  });
});
