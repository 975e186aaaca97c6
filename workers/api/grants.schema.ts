import * as z from "zod";
import { idInput } from "../../core/validation/fields";

/** The body that grants a resource (a secret, an MCP connection): exactly one guild or one agent of the organisation. */
export const grantCreate = (id: string) =>
  z
    .strictObject({ guild_id: idInput().optional(), agent_id: idInput().optional() })
    .refine((body) => (body.guild_id === undefined) !== (body.agent_id === undefined), { message: "name exactly one of guild_id and agent_id" })
    .meta({ id });

/** One grant of a resource: to a guild or to an agent. */
export const grant = (id: string) =>
  z.object({ id: z.uuid(), guild_id: z.uuid().nullable(), agent_id: z.uuid().nullable(), created_at: z.iso.datetime() }).meta({ id });
