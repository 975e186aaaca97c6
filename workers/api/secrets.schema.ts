import * as z from "zod";
import { secretName, secretValue } from "../../core/validation/secret";
import { pageOf } from "../http/page.schema";
import { grant, grantCreate } from "./grants.schema";

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
export const SecretGrantCreate = grantCreate("SecretGrantCreate");

export const SecretGrant = grant("SecretGrant");

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
