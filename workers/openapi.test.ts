import { describe, expect, it } from "vitest";
import { call } from "./test/seed";

describe("OpenAPI document", () => {
  it("describes every route with the schemas requests are validated with", async () => {
    const res = await call("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(doc.openapi).toBe("3.1.0");
    for (const [path, method] of [
      ["/api/health", "get"], ["/api/guilds", "post"], ["/api/guilds", "get"], ["/api/guilds/{id}", "get"],
      ["/api/guilds/{id}", "patch"], ["/api/guilds/{id}", "delete"], ["/api/guilds/{id}/agents", "post"],
      ["/api/agents", "get"], ["/api/agents/{id}", "get"], ["/api/agents/{id}", "patch"], ["/api/agents/{id}", "delete"],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    const create = doc.paths["/api/guilds/{id}/agents"].post.requestBody.content["application/json"].schema;
    expect(create.required).toEqual(["name"]);
    expect(create.properties.max_tool_calls).toMatchObject({ type: "integer", minimum: 1, default: 50 });
    expect(create.properties.thinking_level.enum).toEqual(["off", "low", "medium", "high"]);
    expect(create.additionalProperties).toBe(false);
    expect(doc.paths["/api/agents/{id}"].patch.responses["422"]).toBeDefined();
    expect(doc.paths["/api/health"].get.security).toEqual([]);
  });
});
