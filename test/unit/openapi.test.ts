import { readdir, readFile } from "node:fs/promises";
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, it } from "vitest";
import { EVENT_STREAMS } from "../../core/events/streams";
import { apiDocumentText, type WorkerApp, workerApp } from "../../scripts/openapi/document";

type Operation = {
  operationId?: string;
  security?: unknown[];
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, Response & { $ref?: string }>;
};

type Response = { description?: string; content?: Record<string, { schema?: unknown }> };

const METHODS = ["get", "put", "post", "patch", "delete"] as const;

/** A response, or the shared one it refers to. */
const resolve = (response: Response & { $ref?: string }): Response =>
  response.$ref ? doc.components.responses[response.$ref.replace("#/components/responses/", "")]! : response;
let text: string;
let doc: {
  openapi: string;
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, Response> };
};
let operations: Array<{ path: string; method: string; op: Operation }>;
let app: WorkerApp;

beforeAll(async () => {
  app = await workerApp();
  text = await apiDocumentText();
  doc = JSON.parse(text);
  operations = Object.entries(doc.paths).flatMap(([path, item]) => METHODS.flatMap((method) => (item[method] ? [{ path, method, op: item[method]! }] : [])));
});

describe("CONTRACT: the API document generated from the routes", () => {
  it("CONTRACT: is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(structuredClone(doc) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
  });

  it("CONTRACT: every /api route of the app is in the document (a route without describeRoute fails here)", () => {
    const documented = new Set(operations.map(({ path, method }) => `${method.toUpperCase()} ${path}`));
    // The Browser and CLI views are opaque proxies of the box, authenticated by the ticket
    // their start routes answer (documented there), not API operations.
    const isView = (path: string) => /^\/api\/agents\/:id\/(browser\/vnc|cli\/tty)\/:ticket(\/|$)/.test(path);
    const api = app.routes.filter((r) => r.method !== "ALL" && r.path.startsWith("/api"));
    expect(new Set(api.filter((r) => isView(r.path)).map((r) => r.path)).size).toBe(5);
    const routes = api.filter((r) => !isView(r.path)).map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
    expect(new Set(routes).size).toBeGreaterThan(40);
    expect([...new Set(routes)].filter((r) => !documented.has(r))).toEqual([]);
  });

  it("CONTRACT: every operation has a unique camelCase operationId, a summary, a tag and a 2xx response", () => {
    const ids = operations.map(({ op }) => op.operationId);
    for (const { path, method, op } of operations) {
      const name = `${method} ${path}`;
      expect(op.operationId, name).toMatch(/^[a-z]+[A-Z][A-Za-z]*$/);
      expect((op as { summary?: string }).summary, name).toBeTruthy();
      expect((op as { tags?: string[] }).tags, name).toHaveLength(1);
      expect(
        Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s)),
        name,
      ).not.toHaveLength(0);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("CONTRACT: every {param} of a path template is a required path parameter, and no other", () => {
    for (const { path, method, op } of operations) {
      const template = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      const declared = (op.parameters ?? []).filter((p) => p.in === "path");
      expect(declared.map((p) => p.name).sort(), `${method} ${path}`).toEqual(template);
      for (const p of declared) expect(p.required, `${method} ${path} ${p.name}`).toBe(true);
    }
  });

  it("CONTRACT: errors use the shared Error schema; 401 unless public, 404 with a path id, 413 and 422 with a body, 422 with a query", () => {
    for (const { path, method, op } of operations) {
      const name = `${method} ${path}`;
      const statuses = Object.keys(op.responses);
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      if (!isPublic) expect(statuses, name).toEqual(expect.arrayContaining(["401", "429"]));
      if (path.includes("{id}")) expect(statuses, name).toContain("404");
      if (op.requestBody?.content["application/json"]) expect(statuses, name).toEqual(expect.arrayContaining(["400", "413", "415", "422"]));
      if ((op.parameters ?? []).some((p) => p.in === "query")) expect(statuses, name).toContain("422");
      for (const [status, answer] of Object.entries(op.responses)) {
        if (Number(status) < 400 || (status === "503" && path === "/api/health")) continue;
        const response = resolve(answer);
        expect(response.description, `${name} ${status}`).toBeTruthy();
        expect(response.content?.["application/json"]?.schema, `${name} ${status}`).toEqual({ $ref: "#/components/schemas/Error" });
      }
    }
  });

  it("CONTRACT: JSON bodies and JSON answers are named component schemas", () => {
    // The document itself is the one answer that is not an API type.
    for (const { path, method, op } of operations.filter((o) => o.path !== "/api/openapi.json")) {
      const body = op.requestBody?.content["application/json"] as { schema?: { $ref?: string } } | undefined;
      if (body) expect(body.schema?.$ref, `${method} ${path} body`).toMatch(/^#\/components\/schemas\/\w+$/);
      for (const [status, response] of Object.entries(op.responses)) {
        const schema = response.content?.["application/json"]?.schema as { $ref?: string } | undefined;
        if (schema) expect(schema.$ref, `${method} ${path} ${status}`).toMatch(/^#\/components\/schemas\/\w+$/);
      }
    }
    for (const name of [
      "Guild",
      "Agent",
      "Run",
      "Message",
      "Schedule",
      "Usage",
      "Organisation",
      "Token",
      "Error",
      "AgentStatus",
      "RunPage",
      "GuildCreate",
      "AgentPatch",
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });

  it("CONTRACT: schemas say what clients type from: required fields, nullable as a type list, enums", () => {
    const run = doc.components.schemas.Run as { required: string[]; properties: Record<string, { type?: unknown; enum?: unknown[] }> };
    expect(run.required).toEqual(expect.arrayContaining(["id", "status", "title", "archived_at", "created_at"]));
    expect(run.required).not.toContain("generating");
    expect(run.properties.title!.type).toEqual(["string", "null"]);
    expect(run.properties.status!.enum).toEqual(["active", "completed"]);
    const create = doc.components.schemas.AgentCreate as {
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, Record<string, unknown>>;
    };
    expect(create.required).toEqual(["name"]);
    expect(create.additionalProperties).toBe(false);
    expect(create.properties.max_tool_calls).toMatchObject({ type: "integer", minimum: 1, default: 50 });
    expect(create.properties.thinking_level!.enum).toEqual(["off", "low", "medium", "high"]);
    const list = doc.paths["/api/agents/{id}/runs"]!.get!.parameters!;
    expect(list.map((p) => p.name)).toEqual(expect.arrayContaining(["id", "limit", "cursor", "kind", "archived", "schedule_id"]));
  });

  it("CONTRACT: the event streams document text/event-stream, the upload multipart and the attachment its image types", () => {
    expect(Object.keys(doc.paths["/api/tasks/{id}/events"]!.get!.responses["200"]!.content!)).toEqual(["text/event-stream"]);
    for (const path of ["/api/runs/{id}/events", "/api/guilds/{id}/events"]) {
      const op = doc.paths[path]!.get!;
      expect(Object.keys(op.responses["200"]!.content!)).toEqual(["text/event-stream"]);
      expect(op.parameters!.map((p) => `${p.in}:${p.name}`)).toEqual(expect.arrayContaining(["header:Last-Event-ID", "query:after_seq"]));
    }
    expect(Object.keys(doc.paths["/api/attachments"]!.post!.requestBody!.content)).toEqual(["multipart/form-data"]);
    expect(Object.keys(doc.paths["/api/attachments/{id}"]!.get!.responses["200"]!.content!)).toEqual(expect.arrayContaining(["image/png", "image/jpeg"]));
  });

  it("CONTRACT / SSE-006: each event stream's answer is its named oneOf of events, x-events listing the names core/events sends, each event's data a named schema", () => {
    const streams = {
      "/api/runs/{id}/events": ["RunEvent", EVENT_STREAMS.run],
      "/api/guilds/{id}/events": ["GuildEvent", EVENT_STREAMS.guild],
      "/api/tasks/{id}/events": ["TaskEvent", EVENT_STREAMS.task],
    } as const;
    for (const [path, [name, events]] of Object.entries(streams)) {
      const content = doc.paths[path]!.get!.responses["200"]!.content!;
      expect(content["text/event-stream"]!.schema, path).toEqual({ $ref: `#/components/schemas/${name}` });
      const schema = doc.components.schemas[name] as {
        oneOf: Array<{ properties: { event: { const: string }; data: { $ref?: string } } }>;
        "x-events": string[];
      };
      expect(schema["x-events"], name).toEqual(Object.keys(events));
      expect(
        schema.oneOf.map((item) => item.properties.event.const),
        name,
      ).toEqual(Object.keys(events));
      for (const item of schema.oneOf) {
        const ref = item.properties.data.$ref;
        expect(ref, `${name} ${item.properties.event.const}`).toMatch(/^#\/components\/schemas\/\w+$/);
        expect(doc.components.schemas[ref!.replace("#/components/schemas/", "")], ref).toBeDefined();
      }
    }
    const payload = doc.components.schemas.MessagePayload as { oneOf: Array<{ $ref: string }> };
    expect(payload.oneOf.map((p) => p.$ref.replace("#/components/schemas/", ""))).toEqual(["SystemPayload", "UserPayload", "AssistantPayload", "ToolPayload"]);
  });

  it("CONTRACT: route handlers read query and path values only through their validators, so each is documented", async () => {
    const dir = new URL("../../workers/api/", import.meta.url);
    const files = (await readdir(dir)).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    for (const file of files) {
      const source = await readFile(new URL(file, dir), "utf8");
      expect(source.match(/c\.req\.(query|queries|param)\(/g) ?? [], file).toEqual([]);
    }
  });

  it("CONTRACT: docs/openapi.json is the document the routes generate (npm run openapi writes it)", async () => {
    const committed = await readFile(new URL("../../docs/openapi.json", import.meta.url), "utf8");
    expect(committed === text, "docs/openapi.json is out of date: run npm run openapi").toBe(true);
  });
});
