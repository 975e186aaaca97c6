import * as z from "zod";
import { oneLine } from "../../core/validation/fields";
import { pageOf } from "../http/page.schema";

/** Fields an operator may set on a guild. */
const guildFields = {
  name: oneLine(120),
  description: z.string().max(2000),
  routines_enabled: z.boolean(),
  git_author_email: z.email().max(320).nullable(),
};

/**
 * Body of `POST /api/guilds`.
 *
 * @example GuildCreate.parse({ name: "Research" }) // routines_enabled: true
 */
export const GuildCreate = z
  .strictObject({
    name: guildFields.name,
    description: guildFields.description.default(""),
    routines_enabled: guildFields.routines_enabled.default(true),
    git_author_email: guildFields.git_author_email.default(null),
  })
  .meta({ id: "GuildCreate" });

/** Body of `PATCH /api/guilds/:id`: any subset of the fields, at least one. */
export const GuildPatch = z
  .strictObject(guildFields)
  .partial()
  .refine((body) => Object.keys(body).length > 0, { message: "no field to change" })
  .meta({ id: "GuildPatch" });

/** A guild as the API returns it. */
export const Guild = z
  .object({
    id: z.uuid(),
    organisation_id: z.uuid(),
    name: z.string(),
    description: z.string(),
    routines_enabled: z.boolean(),
    git_author_email: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Guild" });

export const GuildPage = pageOf(Guild, "GuildPage");

export type GuildCreate = z.infer<typeof GuildCreate>;
export type GuildPatch = z.infer<typeof GuildPatch>;
