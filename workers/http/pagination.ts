import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Database } from "../../core/db/client";
import { isUuid } from "../../core/validation/fields";
import { validationFailed } from "./errors";

interface Position {
  createdAt: Date;
  id: string;
}

/**
 * Newest-first keyset pagination on (created_at, id): stable under inserts,
 * and each page is one index range scan.
 *
 * @example
 *   const page = listPage(c.req.valid("query")); // validated by query(ListQuery)
 *   const rows = await db.select().from(guilds).where(and(scope, page.where(guilds.createdAt, guilds.id)))
 *     .orderBy(...page.order(guilds.createdAt, guilds.id)).limit(page.limit + 1);
 *   return c.json(page.result(rows, toGuild));
 */
export function listPage({ limit, cursor }: { limit: number; cursor?: string | undefined }) {
  const after = cursor ? decodeCursor(cursor) : null;
  return {
    limit,
    where(createdAt: PgColumn, id: PgColumn): SQL | undefined {
      if (!after) return undefined;
      return or(lt(createdAt, after.createdAt), and(eq(createdAt, after.createdAt), lt(id, after.id)));
    },
    order: (createdAt: PgColumn, id: PgColumn) => [desc(createdAt), desc(id)],
    result<R extends Position>(rows: R[], wire: (row: R) => unknown) {
      const more = rows.length > limit;
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { data: page.map(wire), next_cursor: more && last ? encodeCursor(last) : null };
    },
  };
}

/** A page as listPage gives it. */
export type ListPage = ReturnType<typeof listPage>;

/** A table whose rows an organisation lists: its organisation_id, created_at and id. */
type OrganisationTable = PgTable & { organisationId: PgColumn; createdAt: PgColumn; id: PgColumn };

/**
 * The organisation's rows of `table` on the page, newest first, and one more when there is
 * one (page.result tells the next cursor from it).
 *
 * @example return c.json(page.result(await organisationRows(db, guilds, organisationId, page), toGuild));
 */
export function organisationRows<T extends OrganisationTable>(db: Database, table: T, organisationId: string, page: ListPage): Promise<T["$inferSelect"][]> {
  const scoped: OrganisationTable = table;
  return db
    .select()
    .from(scoped)
    .where(and(eq(scoped.organisationId, organisationId), page.where(scoped.createdAt, scoped.id)))
    .orderBy(...page.order(scoped.createdAt, scoped.id))
    .limit(page.limit + 1) as Promise<T["$inferSelect"][]>;
}

function encodeCursor(position: Position): string {
  return btoa(`${position.createdAt.toISOString()}|${position.id}`).replace(/=+$/, "");
}

/**
 * What encodeCursor writes: a UTC instant with milliseconds and a row id. The instant must
 * read back unchanged (JS reads 2024-02-30 as March 1: not a cursor it wrote) and fall in
 * years 0001-9999: Postgres has no year 0 (SQLSTATE 22008), which JS Date takes.
 */
const CURSOR_INSTANT = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function decodeCursor(cursor: string): Position {
  try {
    const [at = "", id = "", ...rest] = atob(cursor).split("|");
    const createdAt = new Date(at);
    if (rest.length || !CURSOR_INSTANT.test(at) || !isUuid(id) || Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== at) {
      throw new Error("bad cursor");
    }
    return { createdAt, id };
  } catch {
    throw validationFailed([{ field: "cursor", message: "not a cursor this API returned" }]);
  }
}
