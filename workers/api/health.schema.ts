import * as z from "zod";

/** `GET /api/health`: whether Postgres answers and which migration it is at. */
export const Health = z
  .object({
    status: z.enum(["ok", "degraded", "down"]).describe("degraded: the database runs an older schema than this build expects"),
    checked_at: z.iso.datetime().describe("When this isolate last asked the database; answers within a few seconds share it"),
    database: z.object({ reachable: z.boolean(), latency_ms: z.number().nullable(), error: z.string().optional() }),
    schema: z.object({
      applied: z.int().nullable().describe("Migrations applied"),
      version: z.string().nullable().describe("The newest applied migration's tag"),
      expected: z.string().describe("The newest migration this build ships"),
      up_to_date: z.boolean(),
    }),
  })
  .meta({ id: "Health" });
