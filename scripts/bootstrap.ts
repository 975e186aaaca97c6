/**
 * `npm run bootstrap [-- --json] [-- --name NAME] [-- --spend-ceiling USD]`: creates an
 * organisation with an operator token on DATABASE_URL or the running local stack's
 * database, and prints it.
 *
 * `npm run bootstrap -- --org <id> --spend-ceiling USD|none`: sets (or lifts) the
 * monthly spend ceiling of an existing organisation instead. The ceiling is the
 * operator's: the organisation's own token cannot raise or change it, and its effective
 * monthly limit is the lower of the ceiling and its own limit.
 */
import { parseArgs } from "node:util";
import { createOrganisation, setSpendCeiling } from "../core/db/organisations";
import { parseSpendCeiling } from "../core/usage/spend-limit";
import { isUuid } from "../core/validation/fields";
import { localDatabaseUrl } from "./stack/local";
import { withDatabase } from "./stack/operator";

const { values } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    name: { type: "string", default: "New organisation" },
    org: { type: "string" },
    "spend-ceiling": { type: "string" },
  },
});

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

let ceiling: string | null = null;
try {
  if (values["spend-ceiling"] !== undefined) ceiling = parseSpendCeiling(values["spend-ceiling"]);
} catch (error) {
  fail((error as Error).message);
}

if (values.org !== undefined) {
  if (!isUuid(values.org)) fail(`--org must be an organisation id (a UUID), got ${JSON.stringify(values.org)}`);
  if (values["spend-ceiling"] === undefined) fail("--org needs --spend-ceiling USD (or none to lift the ceiling)");
  const found = await withDatabase(localDatabaseUrl(), (db) => setSpendCeiling(db, values.org!, ceiling));
  if (!found) fail(`No organisation ${values.org}`);
  const result = { organisation_id: values.org, spend_ceiling_usd: ceiling };
  console.log(
    values.json ? JSON.stringify(result) : `Organisation ${values.org}: spend ceiling ${ceiling === null ? "none" : `${Number(ceiling)} USD a month`}`,
  );
} else {
  const result = await withDatabase(localDatabaseUrl(), (db) => createOrganisation(db, values.name!, { spendCeilingUsd: ceiling }));
  if (values.json) {
    console.log(JSON.stringify(ceiling === null ? result : { ...result, spend_ceiling_usd: ceiling }));
  } else {
    console.log(`Organisation ${result.organisation_id}`);
    console.log(`Token ${result.token}`);
    if (ceiling !== null) console.log(`Spend ceiling ${Number(ceiling)} USD a month`);
    console.log("Keep the token: only its hash is stored.");
  }
}
