import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, createApiClient, everyPage, unwrap } from "./api-client";

/** A client whose fetch answers `answer` and records each request. */
function clientAnswering(answer: (request: Request) => Response | Promise<Response>, token: string | null = "gld_session") {
  const requests: Request[] = [];
  vi.stubGlobal("fetch", async (request: Request) => {
    requests.push(request);
    return answer(request);
  });
  const onUnauthorized = vi.fn();
  const api = createApiClient({ baseUrl: "http://api.test", token: () => token, onUnauthorized });
  return { api, requests, onUnauthorized };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("typed API client", () => {
  it("ISSUE-11 client: sends the session's bearer token and returns the typed body", async () => {
    const { api, requests } = clientAnswering(() => json(200, { id: "g1", name: "Research" }));
    const guild = await unwrap(api.GET("/api/guilds/{id}", { params: { path: { id: "g1" } } }));
    expect(guild.name).toBe("Research");
    expect(requests[0]!.url).toBe("http://api.test/api/guilds/g1");
    expect(requests[0]!.headers.get("authorization")).toBe("Bearer gld_session");
  });

  it("ISSUE-11 client: an error answer becomes an ApiError with its code, details and field messages", async () => {
    const { api } = clientAnswering(() =>
      json(422, {
        error: {
          code: "validation.failed",
          message: "Invalid body",
          details: {
            fields: [
              { field: "name", message: "is required" },
              { field: "name", message: "too short" },
            ],
          },
        },
      }),
    );
    const failure = await unwrap(api.POST("/api/guilds", { body: { name: "" } })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 422, code: "validation.failed", message: "Invalid body" });
    expect((failure as ApiError).fieldErrors()).toEqual({ name: "is required; too short" });
  });

  it("ISSUE-11 client: a 401 for the session's token signs out; one for a token being tried does not", async () => {
    const { api, onUnauthorized } = clientAnswering(() => json(401, { error: { code: "auth.invalid_token", message: "Invalid token", details: {} } }));
    await expect(unwrap(api.GET("/api/organisation", { headers: { authorization: "Bearer gld_candidate" } }))).rejects.toMatchObject({ status: 401 });
    expect(onUnauthorized).not.toHaveBeenCalled();
    await expect(unwrap(api.GET("/api/organisation"))).rejects.toMatchObject({ status: 401, code: "auth.invalid_token" });
    expect(onUnauthorized).toHaveBeenCalledOnce();
  });

  it("ISSUE-11 client: an unreachable API is a network.failed ApiError", async () => {
    const { api } = clientAnswering(() => Promise.reject(new TypeError("fetch failed")));
    await expect(unwrap(api.GET("/api/guilds"))).rejects.toMatchObject({ status: 0, code: "network.failed" });
  });

  it("ISSUE-11 client: everyPage follows next_cursor to the last page", async () => {
    const { api, requests } = clientAnswering((request) =>
      new URL(request.url).searchParams.get("cursor") === "c2"
        ? json(200, { data: [{ id: "t3" }], next_cursor: null })
        : json(200, { data: [{ id: "t1" }, { id: "t2" }], next_cursor: "c2" }),
    );
    const tokens = await everyPage((cursor) => unwrap(api.GET("/api/tokens", { params: { query: { limit: 200, cursor } } })));
    expect(tokens.map((t) => t.id)).toEqual(["t1", "t2", "t3"]);
    expect(requests.map((r) => new URL(r.url).search)).toEqual(["?limit=200", "?limit=200&cursor=c2"]);
  });
});
