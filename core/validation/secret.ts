import * as z from "zod";
import { envName, idInput } from "./fields";
import { pageOf } from "./page";
import { reservedSecretName } from "./secret-name";

/** A secret's name: an environment variable nothing in the box reads for itself (secret-name.ts). */
export const secretName = envName.superRefine((name, ctx) => {
  const reserved = reservedSecretName(name);
  if (reserved) ctx.addIssue({ code: "custom", message: reserved });
});

/** Values are sealed whole; 64 KiB is far beyond any key or token. */
export const secretValue = z.string().min(1).max(65_536).meta({ writeOnly: true });

const secretFields = {
  name: secretName,
  value: secretValue,
  description: z.string().max(2000),
  org_wide: z.boolean().describe("true: reaches every agent of the organisation; false: only its grants"),
};

/**
 * Body of `POST /api/secrets`.
 *
 * @example SecretCreate.parse({ name: "GITHUB_TOKEN", value: "ghp_..." }) // org_wide: false
 */
export const SecretCreate = z
  .strictObject({
    name: secretFields.name,
    value: secretFields.value,
    description: secretFields.description.default(""),
    org_wide: secretFields.org_wide.default(false),
  })
  .meta({ id: "SecretCreate" });

/** Body of `PATCH /api/secrets/:id`: any subset of the fields, at least one. */
export const SecretPatch = z
  .strictObject(secretFields)
  .partial()
  .refine((body) => Object.keys(body).length > 0, { message: "no field to change" })
  .meta({ id: "SecretPatch" });

/** Body of `POST /api/secrets/:id/grants`: exactly one guild or one agent of the organisation. */
export const SecretGrantCreate = z
  .strictObject({ guild_id: idInput().optional(), agent_id: idInput().optional() })
  .refine((body) => (body.guild_id === undefined) !== (body.agent_id === undefined), { message: "name exactly one of guild_id and agent_id" })
  .meta({ id: "SecretGrantCreate" });

export const SecretGrant = z
  .object({ id: z.uuid(), guild_id: z.uuid().nullable(), agent_id: z.uuid().nullable(), created_at: z.iso.datetime() })
  .meta({ id: "SecretGrant" });

/** A secret as the API returns it: never its value (SEC-006). */
export const Secret = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    org_wide: z.boolean(),
    grants: z.array(SecretGrant),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Secret" });

export const SecretPage = pageOf(Secret, "SecretPage");

export type SecretCreate = z.infer<typeof SecretCreate>;
export type SecretPatch = z.infer<typeof SecretPatch>;

/**
 * A secret_request of a direct run (OP-SEC-5): what the agent asked for, and whether a
 * secret of that name reaching the agent has been written since.
 */
export const SecretRequest = z
  .object({
    seq: z.int().describe("The seq of the request's tool row"),
    name: z.string(),
    description: z.string(),
    reason: z.string(),
    requested_at: z.iso.datetime(),
    status: z.enum(["pending", "answered"]),
    secret_id: z.uuid().optional().describe("The secret that answers it, once answered"),
  })
  .meta({ id: "SecretRequest" });

export const SecretRequestList = z.object({ data: z.array(SecretRequest) }).meta({ id: "SecretRequestList" });

/** Body of `POST /api/runs/:id/secret-requests/:seq`: the value, stored as the named secret and granted to the agent. */
export const SecretRequestAnswer = z.strictObject({ value: secretValue }).meta({ id: "SecretRequestAnswer" });
