/** `npm run db:migrate`: applies pending migrations to DATABASE_URL, or to the running local stack's database. */
import { migrateDatabase } from "./db/migrate";
import { localDatabaseUrl } from "./stack/local";
import { redactUrl } from "./stack/postgres";

const url = localDatabaseUrl();
await migrateDatabase(url);
console.log(`migrations applied to ${redactUrl(url)}`);
