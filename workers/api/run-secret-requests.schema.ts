import * as z from "zod";
import { secretValue } from "../../core/validation/secret";

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
