/**
 * Writes the API document the Worker serves at /api/openapi.json to docs/openapi.json,
 * for client generators (openapi-typescript) and readers of the repository. It builds the
 * app in Node (no workerd, no database: the document is generated from the route
 * declarations alone). `--check` fails instead when the committed file is out of date.
 *
 * @example npm run openapi            # write docs/openapi.json
 * @example npm run openapi -- --check # exit 1 when it differs from the routes
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { apiDocumentText } from "./openapi/document";

const target = fileURLToPath(new URL("../docs/openapi.json", import.meta.url));
const text = await apiDocumentText();
if (process.argv.includes("--check")) {
  const committed = await readFile(target, "utf8").catch(() => "");
  if (committed !== text) {
    console.error("docs/openapi.json is out of date with the routes: run `npm run openapi` and commit it");
    process.exit(1);
  }
  console.log("docs/openapi.json matches the routes");
} else {
  await writeFile(target, text);
  console.log(`wrote docs/openapi.json (${text.length} bytes)`);
}
