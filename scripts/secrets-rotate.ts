/**
 * `npm run secrets:rotate -- --env <env>`: seals every stored secret value again under the
 * current key of SECRETS_KEK (its last entry), with MCP connections' credentials and the
 * PKCE verifiers of OAuth authorisations in flight, so an older key can then be dropped
 * (docs/deploying.md, "Rotating the secrets key").
 *
 * For a wrangler environment, export the same values its Worker has: DATABASE_URL (the
 * direct connection string) and SECRETS_KEK, with SECRETS_KEK_PREVIOUS when it is set
 * there; Cloudflare never gives a secret's value back. `--env local` works on the running
 * local stack's database and its `.local/secrets-kek` unless those are exported.
 *
 * Exits 0 when every value is under the current key, 1 when some could not be opened
 * (listed by id, name and key version, never by value), 2 on bad arguments or keys.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { experimental_readRawConfig } from "wrangler";
import { resealMcpCredentials, resealOauthVerifiers } from "../core/mcp/reseal";
import { parseKeySet } from "../core/secrets/crypto";
import { resealSecrets } from "../core/secrets/reseal";
import { LOCAL_ENV, parseRotateArgs } from "./secrets/rotate-options";
import { localDatabaseUrl, stateDir } from "./stack/local";
import { withDatabase } from "./stack/operator";
import { redactUrl } from "./stack/postgres";
import { ROOT } from "./stack/wrangler";

function fail(message: string, code = 2): never {
  console.error(`secrets:rotate: ${message}`);
  process.exit(code);
}

const { rawConfig } = experimental_readRawConfig({ config: join(ROOT, "wrangler.toml") });
const parsed = parseRotateArgs(process.argv.slice(2), Object.keys(rawConfig.env ?? {}));
if (!parsed.ok) fail(parsed.message);
const local = parsed.env === LOCAL_ENV;

let kek = process.env.SECRETS_KEK;
if (!kek && local) {
  const file = join(stateDir(), "secrets-kek");
  if (existsSync(file)) kek = readFileSync(file, "utf8").trim();
}
if (!kek) fail(`SECRETS_KEK is not set: export the key set of --env ${parsed.env} (the same value as its Worker's secret, new key last) and run again.`);
if (!local && !process.env.DATABASE_URL) fail(`DATABASE_URL is not set: export the connection string of --env ${parsed.env}'s database and run again.`);
const databaseUrl = local ? localDatabaseUrl() : process.env.DATABASE_URL!;

let keys: Awaited<ReturnType<typeof parseKeySet>>;
try {
  keys = await parseKeySet(kek, process.env.SECRETS_KEK_PREVIOUS);
} catch (error) {
  fail((error as Error).message);
}

const { report, others } = await withDatabase(databaseUrl, async (db) => ({
  report: await resealSecrets(db, keys),
  others: [
    ["MCP credentials", await resealMcpCredentials(db, keys)],
    ["OAuth verifiers", await resealOauthVerifiers(db, keys)],
  ] as const,
}));
const summary = (r: typeof report) =>
  `${r.resealed} sealed again under key ${keys.current}, ${r.current} already under it` +
  (r.changedMeanwhile ? `, ${r.changedMeanwhile} rewritten meanwhile by the platform` : "");
console.log(`Secrets of ${parsed.env} (${redactUrl(databaseUrl)}): ${summary(report)}.`);
for (const [what, r] of others) if (r.resealed + r.current + r.changedMeanwhile + r.failed.length > 0) console.log(`${what}: ${summary(r)}.`);
const failed = [...report.failed.map((f) => ({ ...f, name: `secret ${f.name}` })), ...others.flatMap(([, r]) => r.failed)];
if (failed.length > 0) {
  for (const f of failed) console.error(`  ${f.name} (${f.id}, organisation ${f.organisationId}, key ${f.keyVersion}): ${f.reason}`);
  fail(`${failed.length} value(s) stay under their old key; add that key to SECRETS_KEK_PREVIOUS and run again before dropping it.`, 1);
}
console.log(`Every value is under ${keys.current}: older keys may now be removed from SECRETS_KEK and SECRETS_KEK_PREVIOUS.`);
