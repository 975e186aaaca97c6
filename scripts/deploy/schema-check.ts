/** The part of `GET /api/health` the deploy check reads (workers/api/health.ts). */
export interface HealthReport {
  status?: string;
  database?: { reachable?: boolean; error?: string };
  schema?: { version?: string | null; expected?: string };
}

/**
 * The tag of the newest migration this checkout ships: the last `NNNN_name.sql` of migrations/.
 *
 * @example newestMigrationTag(["0001_group_chat.sql", "0000_init.sql", "meta"]) // "0001_group_chat"
 */
export function newestMigrationTag(fileNames: string[]): string | undefined {
  return fileNames
    .filter((n) => /^\d{4}_.+\.sql$/.test(n))
    .sort()
    .at(-1)
    ?.replace(/\.sql$/, "");
}

/**
 * Why a deployment's health report does not show the expected schema, or null when it does:
 * the database reachable, at the newest migration, and the Worker built with that migration.
 *
 * @example schemaProblem({ status: "ok", database: { reachable: true }, schema: { version: "0002_hardening", expected: "0002_hardening" } }, "0002_hardening") // null
 */
export function schemaProblem(report: HealthReport, newestTag: string): string | null {
  if (report.database?.reachable !== true) {
    return `the Worker cannot reach its database${report.database?.error ? ` (${report.database.error})` : ""}: check its DATABASE_URL secret`;
  }
  const applied = report.schema?.version ?? null;
  if (applied !== newestTag) {
    return `the Worker's database is at migration ${applied ?? "(none this build knows)"}, expected ${newestTag}: its DATABASE_URL secret may name another database than the one migrated`;
  }
  if (report.schema?.expected !== newestTag) {
    return `the Worker answering was built for migration ${report.schema?.expected ?? "(unknown)"}, expected ${newestTag}: the new version is not serving yet`;
  }
  if (report.status !== "ok") return `health status is ${report.status ?? "(missing)"}, expected ok`;
  return null;
}
