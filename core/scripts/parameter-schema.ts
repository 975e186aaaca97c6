/**
 * A script's parameters: a JSON Schema object of type object (SCRIPT-004), checked as data
 * (@cfworker/json-schema interprets schemas, it never compiles them to code, so nothing is
 * evaluated and it runs in a Worker as in Node).
 */
import { dereference, type Schema, Validator } from "@cfworker/json-schema";
import { nestsDeeperThan } from "../validation/depth";

/** The draft schemas are read and arguments checked by. */
const DRAFT = "2020-12";

/**
 * Largest parameter schema, as compact JSON. A schema is offered to the model with every
 * request of a run and copied into each run's snapshot; 16 KiB is far beyond any tool's
 * arguments, and it bounds how deep a schema can nest.
 */
export const MAX_PARAMETERS_BYTES = 16 * 1024;

/** Nesting of subschemas at most: deeper is not a tool's arguments, and would strain the recursive checks. */
const MAX_DEPTH = 32;

const TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"];

const subschema = { $ref: "#/$defs/schema" };
const schemaMap = { type: "object", additionalProperties: subschema };
const schemaList = { type: "array", minItems: 1, items: subschema };
const count = { type: "integer", minimum: 0 };

/**
 * What a well-formed schema looks like: each keyword the validator interprets has a value
 * of the kind it expects (a misspelt `type`, `required: "x"`, `properties: []` are refused
 * here rather than silently ignored when arguments are checked). Unknown keywords pass,
 * as JSON Schema allows.
 */
const SCHEMA_SHAPE = {
  $defs: {
    schema: {
      type: ["object", "boolean"],
      properties: {
        // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword; this object is never awaited
        type: { if: { type: "string" }, then: { enum: TYPES }, else: { type: "array", minItems: 1, uniqueItems: true, items: { enum: TYPES } } },
        properties: schemaMap,
        patternProperties: schemaMap,
        $defs: schemaMap,
        definitions: schemaMap,
        dependentSchemas: schemaMap,
        additionalProperties: subschema,
        unevaluatedProperties: subschema,
        propertyNames: subschema,
        items: { anyOf: [subschema, { type: "array", items: subschema }] },
        prefixItems: { type: "array", items: subschema },
        additionalItems: subschema,
        unevaluatedItems: subschema,
        contains: subschema,
        not: subschema,
        if: subschema,
        // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword; this object is never awaited
        then: subschema,
        else: subschema,
        allOf: schemaList,
        anyOf: schemaList,
        oneOf: schemaList,
        required: { type: "array", uniqueItems: true, items: { type: "string" } },
        dependentRequired: { type: "object", additionalProperties: { type: "array", uniqueItems: true, items: { type: "string" } } },
        enum: { type: "array" },
        minimum: { type: "number" },
        maximum: { type: "number" },
        exclusiveMinimum: { type: "number" },
        exclusiveMaximum: { type: "number" },
        multipleOf: { type: "number", exclusiveMinimum: 0 },
        minLength: count,
        maxLength: count,
        minItems: count,
        maxItems: count,
        minProperties: count,
        maxProperties: count,
        minContains: count,
        maxContains: count,
        uniqueItems: { type: "boolean" },
        pattern: { type: "string" },
        format: { type: "string" },
        title: { type: "string" },
        description: { type: "string" },
        $ref: { type: "string" },
        $id: { type: "string" },
        $schema: { type: "string" },
        $comment: { type: "string" },
      },
    },
  },
  $ref: "#/$defs/schema",
};

/** Built on first use: the Worker's startup does not pay for a check most requests never make. */
let shapeValidator: Validator | undefined;

/** One problem of a parameter schema, at a dotted path inside it ("" for its root). */
export interface SchemaIssue {
  path: string;
  message: string;
}

/**
 * Problems of a parameter schema, none when it is usable: a JSON object, at most
 * MAX_PARAMETERS_BYTES, `type: "object"` at its root, well formed (SCHEMA_SHAPE), every
 * `pattern` a valid regular expression, every `$ref` pointing inside the schema.
 *
 * @example parameterSchemaIssues({ type: "object", properties: { n: { type: "integer" } } }) // []
 * @example parameterSchemaIssues({ type: "array" }) // [{ path: "type", message: 'must be "object"' }]
 */
export function parameterSchemaIssues(schema: unknown): SchemaIssue[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [{ path: "", message: "must be a JSON Schema object or null" }];
  // Depth first: serialising or walking a value nested thousands deep would exhaust the stack.
  if (nestsDeeperThan(schema, MAX_DEPTH)) return [{ path: "", message: `must nest at most ${MAX_DEPTH} levels deep` }];
  const bytes = new TextEncoder().encode(JSON.stringify(schema)).byteLength;
  if (bytes > MAX_PARAMETERS_BYTES) return [{ path: "", message: `must be at most ${MAX_PARAMETERS_BYTES} bytes as JSON (is ${bytes})` }];
  if ((schema as Record<string, unknown>).type !== "object")
    return [{ path: "type", message: 'must be "object": a script takes its arguments as one JSON object' }];
  shapeValidator ??= new Validator(SCHEMA_SHAPE as Schema, DRAFT, false);
  const shape = leafErrors(shapeValidator.validate(schema).errors);
  if (shape.length > 0) return shape;
  const issues = badPatterns(schema, []);
  if (issues.length > 0) return issues;
  return unresolvedRefs(schema);
}

/**
 * What is wrong with `args` against a script's parameter schema, as readable lines; none
 * when they fit (or the script has no schema). The schema is one parameterSchemaIssues accepted.
 *
 * @example checkScriptArguments({ type: "object", required: ["n"] }, {}) // ['arguments: Instance does not have required property "n".']
 */
export function checkScriptArguments(schema: Record<string, unknown> | null, args: unknown): string[] {
  if (schema === null) return [];
  // The validator marks the schema it is given; a copy keeps the caller's (stored) one clean.
  const validator = new Validator(structuredClone(schema) as Schema, DRAFT, false);
  let errors: Parameters<typeof leafErrors>[0];
  try {
    errors = validator.validate(args).errors;
  } catch {
    // Arguments nested past the stack (the checker recurses with them): no script could want them.
    return ["arguments: nested too deeply to check"];
  }
  return leafErrors(errors).map((e) => `${e.path ? `arguments.${e.path}` : "arguments"}: ${e.message}`);
}

/**
 * The validator reports every enclosing keyword too ("Property "n" does not match schema");
 * the innermost ones say what is wrong. Within an anyOf or oneOf only the keyword itself
 * speaks: each branch's own complaint would contradict the others.
 */
function leafErrors(errors: ReadonlyArray<{ instanceLocation: string; keywordLocation: string; error: string }>): SchemaIssue[] {
  const specific = errors.filter((e) => !GENERIC.test(e.error) && !/\/(anyOf|oneOf)\/\d+\//.test(e.keywordLocation));
  const seen = new Set<string>();
  const out: SchemaIssue[] = [];
  for (const e of specific.length > 0 ? specific : errors) {
    const path = pointerPath(e.instanceLocation);
    const message = e.error === "False boolean schema." ? "is not allowed" : e.error;
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, message });
  }
  return out.slice(0, 10);
}

/** Messages of keywords that only say a nested part failed. */
const GENERIC = /subschema|does not match (additional properties |"then" |"else" )?schema|Items did not match/i;

/** "#/properties/n/type" → "properties.n.type". */
function pointerPath(location: string): string {
  return location
    .replace(/^#\/?/, "")
    .split("/")
    .filter(Boolean)
    .map((part) => decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

/** `pattern` and `patternProperties` keys as the validator will build them (unicode mode). */
function badPatterns(value: unknown, path: string[]): SchemaIssue[] {
  if (typeof value !== "object" || value === null) return [];
  const out: SchemaIssue[] = [];
  const node = value as Record<string, unknown>;
  if (!Array.isArray(value)) {
    if (typeof node.pattern === "string" && !compiles(node.pattern))
      out.push({ path: [...path, "pattern"].join("."), message: "is not a valid regular expression" });
    const patterned = node.patternProperties;
    if (typeof patterned === "object" && patterned !== null) {
      for (const key of Object.keys(patterned)) {
        if (!compiles(key)) out.push({ path: [...path, "patternProperties", key].join("."), message: "is not a valid regular expression" });
      }
    }
  }
  for (const [key, child] of Object.entries(node)) out.push(...badPatterns(child, [...path, key]));
  return out;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

/** A `$ref` that names nothing in the schema would throw when arguments are checked. */
function unresolvedRefs(schema: object): SchemaIssue[] {
  const copy = structuredClone(schema) as Schema;
  let lookup: Record<string, unknown>;
  try {
    lookup = dereference(copy);
  } catch (error) {
    return [{ path: "", message: error instanceof Error ? error.message : String(error) }];
  }
  const out: SchemaIssue[] = [];
  const visit = (node: unknown, path: string[]) => {
    if (typeof node !== "object" || node === null) return;
    const target = (node as { __absolute_ref__?: string }).__absolute_ref__;
    if (target !== undefined && lookup[target] === undefined) out.push({ path: [...path, "$ref"].join("."), message: "points at nothing in the schema" });
    for (const [key, child] of Object.entries(node)) visit(child, [...path, key]);
  };
  visit(copy, []);
  return out;
}
