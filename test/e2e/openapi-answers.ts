import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Middleware } from "openapi-fetch";

/**
 * Checks every answer a typed client receives against the OpenAPI document the stack
 * serves: the operation exists, the status is documented for it, the content type is a
 * documented one, and a JSON body validates against the documented schema (JSON Schema
 * 2020-12, `$ref`s into the document's components resolved).
 */

/** The parts of an OpenAPI 3.1 document these checks read. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationDoc>>;
  components?: { responses?: Record<string, ResponseDoc> };
}

interface ResponseDoc {
  $ref?: string;
  content?: Record<string, { schema?: unknown }>;
}

interface OperationDoc {
  operationId?: string;
  responses?: Record<string, ResponseDoc>;
}

/** One answer as the document judges it. */
export interface CheckedAnswer {
  /** The operationId, or `METHOD /path` for an operation without one. */
  operation: string;
  status: number;
  problems: string[];
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const DOCUMENT_ID = "https://api.test/openapi.json";

/** Every operation of the document, by its key (operationId, else `METHOD /path`). */
export function operationsOf(document: OpenApiDocument): Map<string, { method: string; path: string; operation: OperationDoc }> {
  const out = new Map<string, { method: string; path: string; operation: OperationDoc }>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.includes(method)) out.set(operation.operationId ?? `${method.toUpperCase()} ${path}`, { method, path, operation });
    }
  }
  return out;
}

const pointer = (...parts: string[]) => parts.map((p) => encodeURIComponent(p.replaceAll("~", "~0").replaceAll("/", "~1"))).join("/");

/**
 * A middleware for the typed client that checks each answer, and a way to read the
 * verdict on a given response.
 *
 * @example const answers = answerChecker(document); createApiClient({ ..., middleware: [answers.middleware] });
 *          const res = await api.GET("/api/guilds"); answers.of(res.response) // { operation, status, problems }
 */
export function answerChecker(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document as object, DOCUMENT_ID);
  const validators = new Map<string, ValidateFunction>();
  const validator = (ref: string) => {
    let validate = validators.get(ref);
    if (!validate) validators.set(ref, (validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/${ref}` })));
    return validate;
  };
  const checked = new WeakMap<Response, CheckedAnswer>();
  const all: CheckedAnswer[] = [];

  const middleware: Middleware = {
    async onResponse({ request, response, schemaPath }) {
      const method = request.method.toLowerCase();
      const operation = document.paths[schemaPath]?.[method];
      const answer: CheckedAnswer = { operation: operation?.operationId ?? `${method.toUpperCase()} ${schemaPath}`, status: response.status, problems: [] };
      checked.set(response, answer);
      all.push(answer);
      if (!operation) {
        answer.problems.push(`${method.toUpperCase()} ${schemaPath} is not in the document`);
        return response;
      }
      const responses = operation.responses ?? {};
      const status = String(response.status);
      const key = [status, `${status[0]}XX`, "default"].find((k) => responses[k]);
      if (!key) {
        answer.problems.push(`status ${status} is not documented (documented: ${Object.keys(responses).join(", ")}): ${await response.clone().text()}`);
        return response;
      }
      // A named response (`$ref: "#/components/responses/Unauthorized"`) is read where it lives.
      const ref = responses[key]!.$ref;
      const where = ref
        ? ref
            .replace(/^#\//, "")
            .split("/")
            .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"))
        : ["paths", schemaPath, method, "responses", key];
      const documented = ref ? (document.components?.responses?.[where.at(-1)!] ?? {}) : responses[key]!;
      const content = documented.content;
      const type = response.headers.get("content-type")?.split(";")[0]?.trim() ?? "";
      if (!content) return response;
      const documentedType = [type, `${type.split("/")[0]}/*`, "*/*"].find((t) => t in content);
      if (!documentedType) {
        answer.problems.push(`content type ${type || "(none)"} is not documented for ${status} (documented: ${Object.keys(content).join(", ")})`);
        return response;
      }
      if (type === "application/json" && content[type]!.schema !== undefined) {
        const validate = validator(pointer(...where, "content", type, "schema"));
        const body: unknown = await response.clone().json();
        if (!validate(body)) {
          answer.problems.push(
            `body does not match the documented schema: ${ajv.errorsText(validate.errors, { separator: "; " })}: ${JSON.stringify(body).slice(0, 600)}`,
          );
        }
      }
      return response;
    },
  };

  return {
    middleware,
    /**
     * What is wrong with events read from a documented stream (`GET path`): each
     * `{event, id?, data}` must match the stream's text/event-stream schema, so an event
     * the server sends with no schema, or with data off its schema, is named here.
     */
    eventProblems(path: string, events: ReadonlyArray<{ event: string; id?: string; data: string }>): string[] {
      const validate = validator(pointer("paths", path, "get", "responses", "200", "content", "text/event-stream", "schema"));
      return events.flatMap((e) => {
        let data: unknown;
        try {
          data = JSON.parse(e.data);
        } catch {
          return [`${e.event}: its data is not JSON: ${e.data.slice(0, 200)}`];
        }
        const event = { event: e.event, ...(e.id !== undefined ? { id: e.id } : {}), data };
        return validate(event) ? [] : [`${e.event}: ${ajv.errorsText(validate.errors, { separator: "; " }).slice(0, 600)}: ${e.data.slice(0, 300)}`];
      });
    },
    /** The verdict on one response the client received. */
    of: (response: Response): CheckedAnswer | undefined => checked.get(response),
    /** Every answer checked so far, in order. */
    all: (): readonly CheckedAnswer[] => all,
  };
}
