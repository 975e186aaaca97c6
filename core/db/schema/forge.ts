import { sql } from "drizzle-orm";
import { bigint, check, index, jsonb, pgTable, text, unique, uuid } from "drizzle-orm/pg-core";
import { at, id } from "./columns";
import { organisations } from "./tenancy";

/**
 * A webhook delivery of the platform's GitHub App (`POST /api/github/webhooks`), kept once
 * per `X-GitHub-Delivery` and once per body (a captured body sent again under a new delivery
 * id is the same event): the insert is the dedup, so a redelivery, however many arrive at
 * once, is handled by exactly one request. `event_data` is the normalised event the
 * organisation's inbox acts on; `outcome` moves pending → handling → accepted | ignored | failed.
 * A delivery of an installation no organisation holds is kept with no organisation, ignored.
 */
export const forgeDeliveries = pgTable(
  "forge_deliveries",
  {
    id: id(),
    deliveryId: text("delivery_id").notNull(),
    bodySha256: text("body_sha256").notNull(),
    organisationId: uuid("organisation_id").references(() => organisations.id, { onDelete: "cascade" }),
    installationId: bigint("installation_id", { mode: "number" }),
    event: text("event").notNull(),
    action: text("action"),
    // owner/repo, when the event names a repository.
    repository: text("repository"),
    // The login of who caused it.
    sender: text("sender"),
    outcome: text("outcome").notNull().default("pending"),
    // What was done (the task filed, the message sent) or why nothing was.
    detail: text("detail"),
    error: text("error"),
    eventData: jsonb("event_data").notNull().default({}),
    receivedAt: at("received_at").notNull().defaultNow(),
    handledAt: at("handled_at"),
  },
  (t) => [
    unique("forge_deliveries_delivery_unique").on(t.deliveryId),
    unique("forge_deliveries_body_unique").on(t.bodySha256),
    index("forge_deliveries_organisation_received_idx").on(t.organisationId, t.receivedAt),
    index("forge_deliveries_pending_idx").on(t.organisationId, t.receivedAt).where(sql`${t.outcome} in ('pending', 'handling')`),
    check("forge_deliveries_outcome_check", sql`${t.outcome} in ('pending', 'handling', 'accepted', 'ignored', 'failed')`),
  ],
);
