/**
 * `npm run api:types`: writes the console's client types (web/src/lib/api-schema.d.ts) from
 * the OpenAPI document the Worker serves, asking the app itself in Node (no workerd needed).
 * `npm run api:types -- --check` writes nothing and fails when the committed file is stale.
 *
 * openapi-typescript lives in this folder's own package, with the TypeScript 5 compiler API
 * it builds its output with: the project's TypeScript 7 has no JS API.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from "openapi-typescript";
import { apiDocumentText } from "../openapi/document";
import { ROOT } from "../stack/wrangler";

const API_SCHEMA_FILE = join(ROOT, "web/src/lib/api-schema.d.ts");

/** The generated file's text for a document. */
async function clientTypes(document: OpenAPI3): Promise<string> {
  // A default makes a field optional to send: the request bodies' defaults must not turn
  // into required properties (openapi-typescript's defaultNonNullable).
  return COMMENT_HEADER + astToString(await openapiTS(document, { silent: true, defaultNonNullable: false }));
}

async function main(check: boolean): Promise<number> {
  const text = await clientTypes(JSON.parse(await apiDocumentText()) as OpenAPI3);
  let committed = "";
  try {
    committed = readFileSync(API_SCHEMA_FILE, "utf8");
  } catch {
    // Missing counts as stale.
  }
  if (committed === text) return 0;
  if (check) {
    console.error("web/src/lib/api-schema.d.ts is stale: the API document changed. Run `npm run api:types` and commit the result.");
    return 1;
  }
  writeFileSync(API_SCHEMA_FILE, text);
  console.log("wrote web/src/lib/api-schema.d.ts");
  return 0;
}

process.exitCode = await main(process.argv.includes("--check"));
