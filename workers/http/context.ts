import type { Env } from "../../bindings/env";
import type { Database } from "../../core/db/client";

/** Hono's typing of this Worker: its bindings and what middleware puts on the context. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    db: Database;
    /** The caller's organisation, set by the auth middleware. */
    organisationId: string;
    /** The caller's API token, set by the auth middleware: a person's writes are recorded under it. */
    tokenId: string;
    /** When the caller's token expires (null: never), set by the auth middleware. */
    tokenExpiresAt: Date | null;
  };
}
