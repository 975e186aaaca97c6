import * as z from "zod";
import { queryInt } from "./query.schema";

/** Query of every keyset-paged list: `?limit=` (1..200, default 50) and an opaque `?cursor=`. */
export const ListQuery = z.strictObject({
  limit: queryInt(1, 200, 50),
  cursor: z.string().max(200).optional().describe("next_cursor of the previous page"),
});

/**
 * A page of a newest-first list, named `<Item>Page` in the API document.
 *
 * @example export const GuildPage = pageOf(Guild, "GuildPage");
 */
export const pageOf = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({
      data: z.array(item),
      next_cursor: z.string().nullable().describe("Pass as ?cursor= for the next page; null on the last page"),
    })
    .meta({ id });
