import { describe, expect, it } from "vitest";
import { call } from "../test/workerd/seed";

// The document's shape is checked in Node (test/unit/openapi.test.ts); this checks the
// Worker itself generates and serves it, without a token.
describe("OpenAPI document", () => {
  it("CONTRACT: the Worker serves the generated document at /api/openapi.json, the same on every request", async () => {
    const first = await call("GET", "/api/openapi.json");
    expect(first.status).toBe(200);
    expect(first.json.openapi).toBe("3.1.0");
    expect(first.json.paths["/api/guilds/{id}/agents"].post.operationId).toBe("createAgent");
    expect(first.json.components.schemas.Run).toBeDefined();
    const second = await call("GET", "/api/openapi.json");
    expect(second.json).toEqual(first.json);
  });
});
