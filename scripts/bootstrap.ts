/**
 * `npm run bootstrap [-- --json] [-- --name NAME]`: creates an organisation with an
 * operator token on DATABASE_URL or the running local stack's database, and prints it.
 */
import { parseArgs } from "node:util";
import { createOrganisation } from "../core/db/organisations";
import { localDatabaseUrl } from "./local";
import { withDatabase } from "./stack/operator";

const { values } = parseArgs({
  options: { json: { type: "boolean", default: false }, name: { type: "string", default: "New organisation" } },
});
const result = await withDatabase(localDatabaseUrl(), (db) => createOrganisation(db, values.name!));
if (values.json) {
  console.log(JSON.stringify(result));
} else {
  console.log(`Organisation ${result.organisation_id}`);
  console.log(`Token ${result.token}`);
  console.log("Keep the token: only its hash is stored.");
}
