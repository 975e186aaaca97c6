/**
 * How a route declares its contract: `describeRoute` for its operation and responses, and
 * validators for its body, query and path, from which the API document is generated
 * (workers/openapi.ts). The validators answer as the API always has: 413 over
 * MAX_BODY_BYTES, 415 for another content type, 400 for bad JSON, 422 `validation.failed`
 * naming each bad field or query parameter, and 404 for a path id that is not a uuid.
 *
 * @example
 *   .patch("/:id", operation({ operationId: "updateGuild", summary: "Change a guild", tag: "Guilds",
 *     responses: { 200: ok("The guild", Guild) }, notFound: "guild", body: true }),
 *     pathId("guild"), jsonBody(GuildPatch), async (c) => { const body = c.req.valid("json"); ... })
 */
import type { Context, MiddlewareHandler } from "hono";
import { describeRoute, resolver, uniqueSymbol, validator } from "hono-openapi";
import type { OpenAPIV3_1 } from "openapi-types";
import * as z from "zod";
import { UUID_PATTERN } from "../../core/validation/fields";
import { ErrorBody, fieldIssues } from "../../core/validation/issues";
import { readJson } from "./body";
import { notFound, validationFailed } from "./errors";

/** The document's tags, one per area of the API. */
export const TAGS = {
  Platform: "Health and the API document",
  Guilds: "Guilds: the organisation's teams of agents",
  Agents: "Agents, their status and their Memory document",
  Runs: "Runs: transcripts, messages, cancel, resume, archive and their event streams",
  Attachments: "Images uploaded to attach to messages",
  Schedules: "Routines: cron or random wake windows that start schedule runs",
  Scripts: "Scripts: reusable Python an agent keeps, its catalog and each script's versions",
  "Group chat": "A guild's public chat and its event stream",
  Usage: "Usage counters and the organisation's spend limit",
  Tokens: "API tokens of the organisation",
  Secrets: "Secrets of the organisation and their grants to guilds and agents; values are write-only",
  Repositories: "GitHub connections of the organisation and the repositories of its guilds' coding agents",
  MCP: "MCP connections: remote MCP servers, their discovered tools, grants and the presets catalog",
  Tasks: "Tasks: units of work for coding agents in guild repositories, their runs, messages and the organisation's task settings",
} as const;

type Tag = keyof typeof TAGS;
type Responses = Record<number, OpenAPIV3_1.ResponseObject | ReturnType<typeof ok> | ReturnType<typeof eventStream>>;

/** JSON content written by the API: the schema's output side (defaults are filled in). */
const jsonContent = (schema: z.ZodType) => ({ "application/json": { schema: resolver(schema, { options: { io: "output" } }) } });

/** A success response, with its JSON body's schema when it has one. */
export const ok = (description: string, schema?: z.ZodType) => (schema ? { description, content: jsonContent(schema) } : { description });

/**
 * A Server-Sent Events answer: the schema (core/events/streams.ts, eventStreamSchema) is
 * the oneOf of the stream's `{event, id?, data}` items; the body is a sequence of them.
 */
export const eventStream = (description: string, schema: z.ZodType) => ({
  description,
  content: { "text/event-stream": { schema: resolver(schema, { options: { io: "output" } }) } },
});

const ERROR_REF = { $ref: "#/components/schemas/Error" };

/** An error response with the shared Error body. */
export const failure = (description: string): OpenAPIV3_1.ResponseObject => ({ description, content: { "application/json": { schema: ERROR_REF } } });

/**
 * Error responses many operations share, as named responses of the document; the first
 * one names the Error schema itself (from core/validation/issues.ts), the others refer to it.
 */
export const SHARED_RESPONSES = {
  Unauthorized: {
    description: "Missing, invalid, revoked or expired token (auth.missing_token, auth.invalid_token, auth.token_expired)",
    content: { "application/json": { schema: resolver(ErrorBody, { options: { io: "output" } }) } },
  },
  RateLimited: failure("The caller's or the organisation's request budget is spent (rate_limited; details.retry_after_s); retry after Retry-After seconds"),
  InvalidJson: failure("The body is not valid JSON or not UTF-8 (request.invalid_json)"),
  TooLarge: failure("The body is larger than MAX_BODY_BYTES (request.too_large; details.limit_bytes)"),
  UnsupportedMediaType: failure("The body is not application/json (request.unsupported_media_type)"),
  DatabaseUnavailable: {
    ...failure(
      "The database did not answer within the call's deadline or cannot be reached (database.unavailable; details.retry_after_s); retry after Retry-After seconds",
    ),
    headers: { "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer", minimum: 1 } } },
  } satisfies OpenAPIV3_1.ResponseObject as OpenAPIV3_1.ResponseObject,
};

const shared = (name: keyof typeof SHARED_RESPONSES) => ({ $ref: `#/components/responses/${name}` });

interface Operation {
  /** camelCase verb and noun, unique in the document, e.g. listGuilds. */
  operationId: string;
  summary: string;
  description?: string;
  tag: Tag;
  /** The success responses (2xx); errors come from the flags below. */
  responses: Responses;
  /** The resource a 404 names, e.g. "guild" (guild.not_found). */
  notFound?: string;
  /** When it can answer 409: its codes and what each means. */
  conflict?: string;
  /** It reads a JSON body: 400, 413, 415 and 422. */
  body?: boolean;
  /** It reads query parameters: 422 naming the bad one. */
  query?: boolean;
  /** It may answer 422 for another reason than a bad field: what. */
  invalid?: string;
  /** It goes through an agent's or a guild's object, which answers 503 while the database is unreachable. */
  objects?: boolean;
  /** More error responses that apply, by status. */
  errors?: Record<number, OpenAPIV3_1.ResponseObject>;
  /** Anyone may call it: no bearer token, no 401. */
  public?: boolean;
  parameters?: OpenAPIV3_1.ParameterObject[];
  /** A body no validator documents (a multipart upload). */
  requestBody?: OpenAPIV3_1.RequestBodyObject;
}

/**
 * The operation's documentation: success responses and every error response that applies,
 * each with the shared Error body.
 */
export function operation(op: Operation): MiddlewareHandler {
  const responses: Record<string, unknown> = { ...op.responses };
  if (op.body) {
    responses[400] = shared("InvalidJson");
    responses[413] = shared("TooLarge");
    responses[415] = shared("UnsupportedMediaType");
  }
  if (op.body || op.query || op.invalid) {
    const what = [op.body && "body fields", op.query && "query parameters", op.invalid].filter(Boolean).join("; ");
    responses[422] = failure(`Invalid ${what} (validation.failed; each named in details.fields)`);
  }
  if (op.notFound) responses[404] = failure(`No such ${op.notFound} in the caller's organisation (${op.notFound}.not_found)`);
  if (op.conflict) responses[409] = failure(op.conflict);
  if (!op.public) {
    responses[401] = shared("Unauthorized");
    responses[429] = shared("RateLimited");
  }
  // Every authenticated call reads the database (its token at least), so each may meet an outage.
  if (op.objects || !op.public) responses[503] = shared("DatabaseUnavailable");
  Object.assign(responses, op.errors);
  return describeRoute({
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    ...(op.public ? { security: [] } : {}),
    ...(op.parameters ? { parameters: op.parameters } : {}),
    ...(op.requestBody ? { requestBody: op.requestBody } : {}),
    responses: responses as never,
  });
}

/** The header a reconnecting EventSource sends: the id (row seq) of the last event it received. */
export const lastEventId: OpenAPIV3_1.ParameterObject = {
  in: "header",
  name: "Last-Event-ID",
  required: false,
  schema: { type: "string" },
  description: "Resume after this row seq; wins over ?after_seq=",
};

/** Standard Schema issues of a failed validation, as hono-openapi's hook receives them. */
type Outcome = { success: true } | { success: false; error: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }> };

const refuseFields = (outcome: Outcome) => {
  if (!outcome.success) throw validationFailed(fieldIssues({ issues: outcome.error }));
};

/**
 * The query parameters, validated by the schema: 422 naming each bad or unknown one.
 *
 * @example .get("/", query(ListQuery), (c) => listPage(c.req.valid("query")))
 */
export const query = <S extends z.ZodType>(schema: S) => validator("query", schema, refuseFields);

/**
 * The JSON body, read within MAX_BODY_BYTES and validated by the schema (workers/http/body.ts
 * readJson says how each failure answers).
 *
 * @example .post("/", jsonBody(GuildCreate), (c) => c.req.valid("json").name)
 */
export function jsonBody<S extends z.ZodType>(schema: S) {
  const validate = validator("json", schema, refuseFields);
  const middleware = (async (c: Context, next) => {
    await readJson(c);
    return validate(c, next);
  }) as typeof validate;
  // The generator finds a validator by this mark: the body is documented from `schema`.
  return Object.assign(middleware, { [uniqueSymbol]: (validate as unknown as Record<symbol, unknown>)[uniqueSymbol] });
}

/** Path ids are uuids (any version, as isUuid takes them); anything else cannot name a row. */
const Id = z
  .string()
  .regex(UUID_PATTERN)
  .meta({ format: "uuid", pattern: undefined } as z.GlobalMeta);

/**
 * The `:id` of a path (plus any `extra` path parameters), validated: a malformed one is
 * simply not found (404 `<resource>.not_found`), never a 422, as a missing row is.
 *
 * @example .get("/:id", pathId("guild"), (c) => c.req.valid("param").id)
 */
export function pathId<E extends Record<string, { schema: z.ZodType; resource: string }> = Record<never, never>>(resource: string, extra?: E) {
  const shape = { id: Id.describe(`The ${resource}'s id`), ...Object.fromEntries(Object.entries(extra ?? {}).map(([k, v]) => [k, v.schema])) };
  const schema = z.object(shape) as z.ZodObject<{ id: typeof Id } & { [K in keyof E]: E[K]["schema"] }>;
  return validator("param", schema, (outcome) => {
    if (outcome.success) return;
    const bad = outcome.error[0]?.path?.[0];
    const key = typeof bad === "object" ? bad.key : bad;
    throw notFound(key && key !== "id" && extra?.[key as string] ? extra[key as string]!.resource : resource);
  });
}
