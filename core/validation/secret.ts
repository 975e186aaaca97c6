import * as z from "zod";
import { envName } from "./fields";
import { reservedSecretName } from "./secret-name";

/** A secret's name: an environment variable nothing in the box reads for itself (secret-name.ts). */
export const secretName = envName.superRefine((name, ctx) => {
  const reserved = reservedSecretName(name);
  if (reserved) ctx.addIssue({ code: "custom", message: reserved });
});

/** Values are sealed whole; 64 KiB is far beyond any key or token. */
export const secretValue = z.string().min(1).max(65_536).meta({ writeOnly: true });
