import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { forgeDeliveries } from "../../core/db/schema";
import type { AppEnv } from "../http/context";
import { ok, operation, query } from "../http/contract";
import { listPage } from "../http/pagination";
import { GitHubDeliveryListQuery, GitHubDeliveryPage } from "./github-deliveries.schema";

/**
 * The organisation's GitHub App webhook deliveries (issue 33), newest first: what each came
 * to. Deliveries of an installation no organisation holds are listed nowhere.
 */

type DeliveryRow = typeof forgeDeliveries.$inferSelect;

const toDelivery = (row: DeliveryRow) => ({
  id: row.id,
  delivery_id: row.deliveryId,
  event: row.event,
  action: row.action,
  repository: row.repository,
  sender: row.sender,
  outcome: row.outcome,
  detail: row.detail,
  error: row.error,
  received_at: row.receivedAt.toISOString(),
  handled_at: row.handledAt?.toISOString() ?? null,
});

export const githubDeliveryRoutes = new Hono<AppEnv>().get(
  "/deliveries",
  operation({
    operationId: "listGitHubDeliveries",
    summary: "The organisation's GitHub webhook deliveries, newest first, with what each came to",
    tag: "Repositories",
    query: true,
    responses: { 200: ok("A page of deliveries", GitHubDeliveryPage) },
  }),
  query(GitHubDeliveryListQuery),
  async (c) => {
    const { repository, outcome, ...paging } = c.req.valid("query");
    const page = listPage(paging);
    const rows = await c
      .get("db")
      .select()
      .from(forgeDeliveries)
      .where(
        and(
          eq(forgeDeliveries.organisationId, c.get("organisationId")),
          repository ? eq(forgeDeliveries.repository, repository) : undefined,
          outcome ? eq(forgeDeliveries.outcome, outcome) : undefined,
          page.where(forgeDeliveries.receivedAt, forgeDeliveries.id),
        ),
      )
      .orderBy(...page.order(forgeDeliveries.receivedAt, forgeDeliveries.id))
      .limit(page.limit + 1);
    return c.json(
      page.result(
        rows.map((row) => ({ ...row, createdAt: row.receivedAt })),
        toDelivery,
      ),
    );
  },
);
