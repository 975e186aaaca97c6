import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { promptVariants } from "../../core/db/schema";
import { toWireVariant } from "../../core/db/variants";
import type { AppEnv } from "../http/context";
import { ok, operation, pathId } from "../http/contract";
import { notFound } from "../http/errors";
import { Variant } from "./variants.schema";

/** `/api/variants/:id`: one variant. */
export const variantRoutes = new Hono<AppEnv>().get(
  "/:id",
  operation({
    operationId: "getPromptVariant",
    summary: "A what-if variant: its settings, status, answer or error, tokens, cost and latency",
    tag: "Runs",
    responses: { 200: ok("The variant", Variant) },
    notFound: "variant",
  }),
  pathId("variant"),
  async (c) => {
    const { id } = c.req.valid("param");
    const [row] = await c
      .get("db")
      .select()
      .from(promptVariants)
      .where(and(eq(promptVariants.id, id), eq(promptVariants.organisationId, c.get("organisationId"))))
      .limit(1);
    if (!row) throw notFound("variant");
    return c.json(toWireVariant(row));
  },
);
