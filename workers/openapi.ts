import * as z from "zod";

/** What the OpenAPI document says of one route; each api module lists its own. */
export interface RouteDoc {
  method: "get" | "post" | "patch" | "put" | "delete";
  /** OpenAPI path template, e.g. `/api/guilds/{id}`. */
  path: string;
  summary: string;
  tag: string;
  /** The same zod schema the handler validates the body with. */
  body?: z.ZodType;
  response?: z.ZodType;
  /** Success status; 200 by default. */
  status?: number;
  /** The response is `{data: [response], next_cursor}`. */
  list?: boolean;
  /** Defaults to true: the route needs a bearer token. */
  auth?: boolean;
}

const ErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) }),
});

const jsonSchema = (schema: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" });

const content = (schema: Record<string, unknown>) => ({ "application/json": { schema } });

/**
 * Builds the OpenAPI 3.1 document from the route docs, so the published schemas
 * are the ones requests are validated with.
 */
export function openApiDocument(routes: RouteDoc[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const errorRef = { $ref: "#/components/schemas/Error" };
  for (const route of routes) {
    const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1], in: "path", required: true, schema: m[1] === "seq" ? { type: "integer", minimum: 0 } : { type: "string", format: "uuid" },
    }));
    const status = String(route.status ?? 200);
    let response: Record<string, unknown> | undefined;
    if (route.response) {
      const item = jsonSchema(route.response, "output");
      response = route.list
        ? { type: "object", properties: { data: { type: "array", items: item }, next_cursor: { type: ["string", "null"] } }, required: ["data", "next_cursor"] }
        : item;
    }
    const responses: Record<string, unknown> = {
      [status]: response ? { description: "Success", content: content(response) } : { description: "Success" },
    };
    if (route.auth !== false) {
      responses["401"] = { description: "Missing, invalid, revoked or expired token", content: content(errorRef) };
      responses["429"] = { description: "The organisation's request budget is spent (rate_limited); retry after Retry-After seconds", content: content(errorRef) };
    }
    if (params.length) responses["404"] = { description: "Not found in the caller's organisation", content: content(errorRef) };
    if (route.body) {
      responses["413"] = { description: "Body too large", content: content(errorRef) };
      responses["422"] = { description: "Invalid fields, each named in details.fields", content: content(errorRef) };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method] = {
      summary: route.summary,
      tags: [route.tag],
      ...(params.length ? { parameters: params } : {}),
      ...(route.list ? { parameters: [...params, ...listParameters] } : {}),
      ...(route.body ? { requestBody: { required: true, content: content(jsonSchema(route.body, "input")) } } : {}),
      ...(route.auth === false ? { security: [] } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Guilds platform API", version },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { Error: jsonSchema(ErrorBody, "output") },
    },
    paths,
  };
}

const listParameters = [
  { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
  { name: "cursor", in: "query", schema: { type: "string" }, description: "next_cursor of the previous page" },
];
