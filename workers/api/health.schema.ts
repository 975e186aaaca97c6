import * as z from "zod";

/** `GET /api/health`: whether Postgres answers and which migration it is at. */
export const Health = z
  .object({
    status: z
      .enum(["ok", "degraded", "down"])
      .describe(
        "degraded (HTTP 200): the database runs an older schema than this build expects, or a required secret is missing or unreadable; down (HTTP 503): the database cannot be reached. problems names each reason",
      ),
    checked_at: z.iso.datetime().describe("When this isolate last asked the database; answers within a few seconds share it"),
    database: z.object({ reachable: z.boolean(), latency_ms: z.number().nullable(), error: z.string().optional() }),
    schema: z.object({
      applied: z.int().nullable().describe("Migrations applied"),
      version: z.string().nullable().describe("The newest applied migration's tag"),
      expected: z.string().describe("The newest migration this build ships"),
      up_to_date: z.boolean(),
    }),
    secrets: z
      .object({
        missing: z.array(z.string()).describe("Required secrets that are not set, by name"),
        unreadable: z.array(z.string()).describe("Secrets that are set but cannot be used (a key that does not parse), by name"),
      })
      .describe("The required secrets (SECRETS_KEK; MODEL_API_KEY when MODEL_BASE_URL is a public address); never their values"),
    problems: z.array(z.string()).describe("Why the status is not ok, one line each; empty when ok"),
  })
  .meta({ id: "Health" });
