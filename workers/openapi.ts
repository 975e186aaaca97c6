import type { Env, Hono } from "hono";
import { generateSpecs } from "hono-openapi";
import { SHARED_RESPONSES, TAGS } from "./http/contract";

/**
 * The OpenAPI 3.1 document, generated from the routes' own declarations (describeRoute
 * and the validators of workers/http/contract.ts), so it says what requests are validated with.
 * Built on the first request that asks for it, not at start: converting every schema
 * costs CPU that no other request needs.
 *
 * @example const doc = await openApiDocument(app, "0.1.0");
 */
export async function openApiDocument<E extends Env>(app: Hono<E>, version: string): Promise<Record<string, unknown>> {
  const doc = await generateSpecs(app, {
    defaultValidationErrorResponse: false,
    // openapi.json is a route of its own, not a static file.
    excludeStaticFile: false,
    documentation: {
      info: {
        title: "Guilds platform API",
        version,
        description:
          "Organisations, guilds of AI agents, their runs, routines and group chat. Every route but /api/health needs `Authorization: Bearer <token>`.",
      },
      servers: [{ url: "/" }],
      security: [{ bearer: [] }],
      tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
      components: {
        securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API token (gld_…)" } },
        responses: SHARED_RESPONSES,
      },
    },
  });
  return tidy(doc) as Record<string, unknown>;
}

/**
 * Normalises zod's JSON Schema for client generators: a nullable value is
 * `type: [T, "null"]` rather than `anyOf` of two schemas; the long patterns zod writes
 * beside `format: date-time` and `format: uuid` are dropped (the format says it), and so
 * are the safe-integer bounds it puts on every integer (no client needs them spelled out).
 */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = tidy(inner);
  if ((out.format === "date-time" || out.format === "uuid") && typeof out.pattern === "string") delete out.pattern;
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  const anyOf = out.anyOf as Array<Record<string, unknown>> | undefined;
  if (anyOf?.length === 2 && anyOf[1]?.type === "null" && Object.keys(anyOf[1]).length === 1) {
    const [first] = anyOf;
    if (first && typeof first.type === "string" && !("$ref" in first) && !("const" in first)) {
      delete out.anyOf;
      const merged: Record<string, unknown> = { ...first, ...out, type: [first.type, "null"] };
      if (Array.isArray(first.enum)) merged.enum = [...first.enum, null];
      return merged;
    }
  }
  return out;
}
