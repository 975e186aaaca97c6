import { describe, expect, it } from "vitest";
import { nativeToolNames } from "../tools/registry";
import { MAX_PARAMETERS_BYTES } from "./parameter-schema";
import { checkScriptArguments, MAX_SCRIPT_SOURCE_BYTES, parseScriptArguments, validateScriptWrite } from "./rules";

const TAKEN = nativeToolNames();
const good = { name: "fetch_prices", description: "Fetches the latest prices", source: "print('hi')\n" };
const check = (patch: Record<string, unknown>) => validateScriptWrite({ ...good, ...patch }, TAKEN);
const fieldsOf = (r: ReturnType<typeof check>) => (r.ok ? [] : r.issues.map((i) => i.field));

describe("script writes", () => {
  it("SCRIPT-042: a complete write passes with its description trimmed, its source untouched and no parameters as null", () => {
    const r = validateScriptWrite({ ...good, description: "  Fetches prices  ", source: "  x = 1\n\n" }, TAKEN);
    expect(r).toEqual({ ok: true, value: { name: "fetch_prices", description: "Fetches prices", source: "  x = 1\n\n", parameters: null } });
  });

  it("SCRIPT-007: a name is a lowercase letter, then lowercase letters, digits, _ or -, 63 characters at most", () => {
    for (const name of ["a", "a1", "fetch-prices_2", `a${"b".repeat(62)}`]) expect(check({ name }).ok, name).toBe(true);
    for (const name of ["", "1abc", "_x", "Fetch", "fetch prices", "fetch.py", "../etc", `a${"b".repeat(63)}`, 7, undefined]) {
      expect(fieldsOf(check({ name })), String(name)).toEqual(["name"]);
    }
  });

  it("SCRIPT-008: manifest is reserved", () => {
    const r = check({ name: "manifest" });
    expect(r).toEqual({ ok: false, issues: [{ field: "name", message: '"manifest" is reserved' }] });
  });

  it("SCRIPT-009: a native tool's name is refused, whatever the agent's flags (shell, browser tools, memory, note)", () => {
    for (const name of ["shell", "browser_click", "memory_write", "note_write", "schedule_create", "secret_request"]) {
      expect(check({ name }), name).toEqual({ ok: false, issues: [{ field: "name", message: `"${name}" is the name of a tool the agent has` }] });
    }
    // A connected tool's name passed in `taken` is refused the same way.
    expect(fieldsOf(validateScriptWrite({ ...good, name: "coingecko_price" }, new Set(["coingecko_price"])))).toEqual(["name"]);
  });

  it("SCRIPT-010: the description is required, non-blank and at most 400 characters", () => {
    expect(fieldsOf(check({ description: undefined }))).toEqual(["description"]);
    expect(fieldsOf(check({ description: "   \n" }))).toEqual(["description"]);
    expect(fieldsOf(check({ description: 12 }))).toEqual(["description"]);
    expect(check({ description: "d".repeat(400) }).ok).toBe(true);
    const long = check({ description: "d".repeat(401) });
    expect(long).toEqual({ ok: false, issues: [{ field: "description", message: "must be at most 400 characters (is 401)" }] });
  });

  it("SCRIPT-005: the source is required and must hold non-whitespace text; its size is capped", () => {
    expect(fieldsOf(check({ source: undefined }))).toEqual(["source"]);
    expect(fieldsOf(check({ source: " \n\t " }))).toEqual(["source"]);
    expect(fieldsOf(check({ source: ["print(1)"] }))).toEqual(["source"]);
    expect(check({ source: `# ${"x".repeat(MAX_SCRIPT_SOURCE_BYTES - 2)}` }).ok).toBe(true);
    expect(fieldsOf(check({ source: `# ${"é".repeat(MAX_SCRIPT_SOURCE_BYTES / 2)}` }))).toEqual(["source"]);
  });

  it("SCRIPT-042: every bad field is named at once, unknown fields too, and a body that is not an object is refused", () => {
    const r = validateScriptWrite({ name: "Bad", description: "", source: "", parameters: [], extra: 1 }, TAKEN);
    expect(fieldsOf(r)).toEqual(["extra", "name", "description", "source", "parameters"]);
    for (const body of [null, "script", [good]]) expect(fieldsOf(validateScriptWrite(body, TAKEN))).toEqual([""]);
  });
});

describe("script parameters (SCRIPT-004)", () => {
  const params = (parameters: unknown) => check({ parameters });

  it("SCRIPT-004: parameters are null, absent, or a JSON Schema object of type object", () => {
    expect(params(null)).toMatchObject({ ok: true, value: { parameters: null } });
    const schema = {
      type: "object",
      properties: {
        symbol: { type: "string", pattern: "^[A-Z]+$" },
        days: { type: "integer", minimum: 1 },
        tags: { type: "array", items: { $ref: "#/$defs/tag" } },
      },
      required: ["symbol"],
      additionalProperties: false,
      $defs: { tag: { type: "string", enum: ["a", "b"] } },
    };
    expect(params(schema)).toEqual({ ok: true, value: { ...good, parameters: schema } });
  });

  it("SCRIPT-004: a schema whose root is not of type object is refused on parameters.type", () => {
    for (const p of [{ type: "array" }, { properties: {} }, { type: ["object", "null"] }]) {
      expect(params(p), JSON.stringify(p)).toMatchObject({
        ok: false,
        issues: [{ field: "parameters.type", message: expect.stringContaining('must be "object"') }],
      });
    }
    for (const p of ["{}", 3, true, [{ type: "object" }]]) expect(fieldsOf(params(p)), JSON.stringify(p)).toEqual(["parameters"]);
  });

  it("SCRIPT-004: a malformed schema is refused at the keyword that is wrong, without running anything", () => {
    const cases: Array<[unknown, string]> = [
      [{ type: "object", properties: { n: { type: "integr" } } }, "parameters.properties.n.type"],
      [{ type: "object", required: "n" }, "parameters.required"],
      [{ type: "object", properties: [] }, "parameters.properties"],
      [{ type: "object", properties: { n: { minLength: -1 } } }, "parameters.properties.n.minLength"],
      [{ type: "object", properties: { s: { type: "string", pattern: "([" } } }, "parameters.properties.s.pattern"],
      [{ type: "object", properties: { s: { $ref: "#/$defs/missing" } } }, "parameters.properties.s.$ref"],
      [{ type: "object", properties: { s: { $ref: "https://example.com/schema.json" } } }, "parameters.properties.s.$ref"],
      [{ type: "object", anyOf: [] }, "parameters.anyOf"],
    ];
    for (const [p, field] of cases) expect(fieldsOf(params(p)), JSON.stringify(p)).toEqual([field]);
  });

  it("SCRIPT-004: a schema larger than 16 KiB is refused", () => {
    const properties = Object.fromEntries(Array.from({ length: 800 }, (_, i) => [`field_${i}`, { type: "string" }]));
    const r = params({ type: "object", properties });
    expect(JSON.stringify({ type: "object", properties }).length).toBeGreaterThan(MAX_PARAMETERS_BYTES);
    expect(r).toMatchObject({ ok: false, issues: [{ field: "parameters", message: expect.stringContaining(`at most ${MAX_PARAMETERS_BYTES} bytes`) }] });
  });

  it("SCRIPT-004: a schema nested deeper than 32 levels is refused, however deep, without exhausting the stack", () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(params({ type: "object", properties: { x: { enum: deep } } })).toMatchObject({
      ok: false,
      issues: [{ field: "parameters", message: "must nest at most 32 levels deep" }],
    });
    let fine: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 10; i++) fine = { type: "object", properties: { inner: fine } };
    expect(params(fine).ok).toBe(true);
  });

  it("SCRIPT-004: checking leaves the stored schema as it was given", () => {
    const schema = { type: "object", properties: { s: { $ref: "#/$defs/t" } }, $defs: { t: { type: "string" } } };
    const before = JSON.stringify(schema);
    expect(params(schema).ok).toBe(true);
    checkScriptArguments(schema, { s: "x" });
    expect(JSON.stringify(schema)).toBe(before);
    expect(Object.getOwnPropertyNames(schema.properties.s)).toEqual(["$ref"]);
  });
});

describe("script arguments", () => {
  it("SCRIPT-036 / ERR-016: no arguments are {}, a string is read as JSON, anything but a JSON object is refused", () => {
    expect(parseScriptArguments(undefined)).toEqual({ ok: true, value: {} });
    expect(parseScriptArguments({ n: 2 })).toEqual({ ok: true, value: { n: 2 } });
    expect(parseScriptArguments('{"n": 2, "s": "x"}')).toEqual({ ok: true, value: { n: 2, s: "x" } });
    for (const bad of [null, 3, "3", "[1]", "not json", "", [1], true, '"{}"', new Date(0)]) {
      expect(parseScriptArguments(bad), String(bad)).toEqual({ ok: false, message: "arguments must be a JSON object" });
    }
  });

  it("SCRIPT-033: arguments are checked against the script's parameter schema, naming each bad one", () => {
    const schema = {
      type: "object",
      properties: { n: { type: "integer" }, o: { type: "object", properties: { k: { type: "string" } } } },
      required: ["n"],
      additionalProperties: false,
    };
    expect(checkScriptArguments(schema, { n: 1, o: { k: "x" } })).toEqual([]);
    expect(checkScriptArguments(schema, {})).toEqual(['arguments: Instance does not have required property "n".']);
    expect(checkScriptArguments(schema, { n: "x", o: { k: 1 }, z: 1 })).toEqual([
      'arguments.n: Instance type "string" is invalid. Expected "integer".',
      'arguments.o.k: Instance type "number" is invalid. Expected "string".',
      "arguments.z: is not allowed",
    ]);
    expect(checkScriptArguments(null, { anything: true })).toEqual([]);
  });

  it("SCRIPT-033: arguments nested past what a recursive schema can check are refused, not thrown", () => {
    const tree = { type: "object", properties: { x: { $ref: "#/$defs/node" } }, $defs: { node: { type: "array", items: { $ref: "#/$defs/node" } } } };
    expect(checkScriptArguments(tree, { x: [[[]]] })).toEqual([]);
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(checkScriptArguments(tree, { x: deep })).toEqual(["arguments: nested too deeply to check"]);
  });
});
